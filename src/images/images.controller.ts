import { Controller, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public, RequireScope } from '../auth/access.decorator.js';
import { ApiErrors } from '../common/error.dto.js';
import { CurrentPrincipal, type Principal } from '../common/principal.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ParamPatterns, UUID_PATTERN } from '../common/route-params.js';
import { ObjectTestTypeDto } from '../resource/resource.dto.js';
import { CROSS_ORIGIN_RESOURCE } from '../observability/security-headers.js';
import { IMAGE_TYPES } from './image-format.js';
import { IMAGES_MAX_BYTES } from './images.config.js';
import { ImageUpload, UploadedImage } from './image-upload.js';
import { StringTestTypeDto, UploadImageQueryDto } from './images.dto.js';
import { ImagesService } from './images.service.js';
import { DeclareRoute } from '../common/route-config.js';

const BINARY = { type: 'string', format: 'binary' } as const;

const UPLOAD_DESCRIPTION = [
  'The body is the image itself with its media type as `Content-Type` (image/jpeg, image/png or image/gif), ',
  'or a `multipart/form-data` body with one file part (browser forms) whose part `Content-Type` is one of those. ',
  `At most ${IMAGES_MAX_BYTES} bytes (10 MB): 413 as soon as Content-Length says more, or as soon as the body passes it. `,
  'Checks in this order: `sku` present (400) → Content-Type (415, also when absent) → size (413) → a resource has the key `sku` (404) → ',
  'the bytes are not empty and start with the signature of the declared type (400) → the width and height the file\'s header declares ',
  '(400 `InvalidInput` for a side of 0, a side above IMAGES_MAX_DIMENSION, default 20,000, or more than IMAGES_MAX_PIXELS pixels, default 100,000,000; ',
  'the header is what counts, so a small file that would decompress to a huge image is refused). ',
  'The bytes are stored once per project (content-addressed) in storage every server shares. ',
  'Without `Prefer: respond-async`: 200 with the resource, the image appended to its `images` and its version +1. ',
  'With it: 202 `{"stringExample": "<image id>"}` once the bytes and a pending job are durably stored; ',
  'a background worker attaches the image (the version changes then) and the job survives a restart.',
].join('');

/** POST /{projectKey}/resource/images and GET /{projectKey}/resource/images/{imageId} (docs/api-guide.md#images). */
@ApiTags('images')
@ApiProjectKeyParam()
@ApiExtraModels(ObjectTestTypeDto, StringTestTypeDto)
@Controller(':projectKey/resource/images')
export class ImagesController {
  constructor(private readonly images: ImagesService) {}

  @Post()
  @RequireScope(['manage_products'])
  @ApiOperation({
    summary: 'Uploads an image and attaches it to the resource whose key is `sku`',
    description: UPLOAD_DESCRIPTION,
    requestBody: {
      required: true,
      content: {
        ...Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: BINARY }])),
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: { file: { ...BINARY, description: 'The image (image/jpeg, image/png or image/gif); the first file part is used.' } },
          },
        },
      },
    },
  })
  @ApiHeader({
    name: 'Prefer',
    required: false,
    description: '`respond-async`: answer 202 once the image is stored; it is attached in the background.',
    schema: { type: 'string', enum: ['respond-async'] },
  })
  @ApiResponse({ status: 200, description: 'Attached: the resource with its new version.', content: { 'application/json': { schema: { $ref: getSchemaPath(ObjectTestTypeDto) } } } })
  @ApiResponse({
    status: 202,
    description: 'Accepted (Prefer: respond-async): the image id; the attach finishes in the background.',
    headers: { 'Preference-Applied': { schema: { type: 'string', enum: ['respond-async'] } } },
    content: { 'application/json': { schema: { $ref: getSchemaPath(StringTestTypeDto) } } },
  })
  @ApiErrors(400, 404, 413, 415)
  async uploadImage(
    @ProjectKey() projectKey: string,
    @Query() query: UploadImageQueryDto,
    @UploadedImage() upload: ImageUpload,
    @Headers('prefer') prefer: string | undefined,
    @CurrentPrincipal() by: Principal,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const answer = await this.images.upload(projectKey, query, upload, prefer, by);
    // The status depends on the request (200 or 202), so this handler sends the answer itself.
    if (answer.status === 202) res.header('Preference-Applied', 'respond-async');
    res.status(answer.status).type('application/json; charset=utf-8').send(answer.json);
  }

  @Get(':imageId')
  @Public()
  @DeclareRoute(CROSS_ORIGIN_RESOURCE)
  @ParamPatterns({ imageId: UUID_PATTERN })
  @ApiOperation({
    summary: 'Downloads an image',
    description:
      'The bytes of an image, readable without a token (image ids are random). Strong ETag (the SHA-256 of the bytes); ' +
      '`If-None-Match` → 304; `Cache-Control: public, max-age=31536000, immutable` (the bytes of an id never change).',
  })
  @ApiParam({ name: 'imageId', format: 'uuid', description: 'The `id` of the image (the last segment of its `url`).' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'An ETag from an earlier answer: 304 when it is still current.' })
  @ApiResponse({
    status: 200,
    description: 'The image bytes.',
    headers: {
      ETag: { schema: { type: 'string' }, description: 'Strong: the quoted SHA-256 of the bytes.' },
      'Cache-Control': { schema: { type: 'string', example: 'public, max-age=31536000, immutable' } },
      'Content-Length': { schema: { type: 'integer' } },
    },
    content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: BINARY }])),
  })
  @ApiResponse({ status: 304, description: 'Not modified: the If-None-Match ETag is current (no body).' })
  @ApiErrors(404)
  async getImage(
    @ProjectKey() projectKey: string,
    @Param('imageId') imageId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const served = await this.images.serve(projectKey, imageId, ifNoneMatch);
    res.status(served.status).headers(served.headers).send(served.body);
  }
}
