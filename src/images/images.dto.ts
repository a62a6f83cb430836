import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, MaxLength } from 'class-validator';
import { Optional, QueryBoolean, QueryString, WholeNumber } from '../common/validation/decorators.js';

/** The query of POST /{projectKey}/resource/images (docs/api-guide.md#images); unknown parameters are ignored. */
export class UploadImageQueryDto {
  @ApiProperty({ description: 'Key of the resource the image is attached to (404 when no resource has it).' })
  @IsDefined()
  @QueryString()
  sku: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, description: 'Variant the image belongs to.' })
  @Optional()
  @WholeNumber(1, Number.MAX_SAFE_INTEGER)
  variant?: number;

  @ApiPropertyOptional({
    maxLength: 255,
    description:
      'Name of the file; stored as `<base>-<6 random characters>.<ext>` keeping only `[A-Za-z0-9._-]` of the base ' +
      '(default: the multipart part\'s filename, else `image`). The extension is the image type\'s.',
  })
  @Optional()
  @QueryString()
  @MaxLength(255)
  filename?: string;

  @ApiPropertyOptional({ type: 'boolean', default: true, description: 'A staged image is listed with `staged: true` and becomes current at the next `publish`.' })
  @Optional()
  @QueryBoolean()
  staged?: boolean;
}

/** StringTestType (spec part 2): the 202 answer carries the image id. */
export class StringTestTypeDto {
  @ApiProperty({ description: 'The id of the accepted image; it is attached in the background.' })
  stringExample: string;
}
