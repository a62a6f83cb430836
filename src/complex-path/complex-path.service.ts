import { Injectable } from '@nestjs/common';
import { stringifyJson } from '../common/lossless-json.js';
import { preferredMediaType } from '../common/accept-header.js';
import { buildEcho, checkPathParameters, toFormUrlEncoded } from './complex-path-echo.js';
import { ComplexPathQueryDto, OutOfOrderPropertiesTestTypeDto } from './complex-path.dto.js';
import { ComplexPathRepository } from './complex-path.repository.js';

interface ComplexPathAnswer {
  status: 200 | 201 | 203;
  contentType: string;
  text: string;
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * The complex-path POST (docs/api-guide.md#complex-path): stores the body as a record under
 * (projectKey, uriParameterOne, uriParameterTwo, id) and answers the echo of the request: 201 when the
 * record is new, 200 when it replaced one, 203 form-encoded when `Accept` prefers that.
 */
@Injectable()
export class ComplexPathService {
  constructor(private readonly records: ComplexPathRepository) {}

  async write(
    projectKey: string,
    path: { uriParameterOne: string; uriParameterTwo: string },
    query: ComplexPathQueryDto,
    body: OutOfOrderPropertiesTestTypeDto,
    accept: string | undefined,
  ): Promise<ComplexPathAnswer> {
    checkPathParameters(path);
    const written = await this.records.upsert(projectKey, path.uriParameterOne, path.uriParameterTwo, body.id, JSON.stringify(body));
    const echo = buildEcho({ ...path, ...query, body, revision: written.revision, count: written.count });
    if (preferredMediaType(accept, [JSON_TYPE, FORM_TYPE]) === FORM_TYPE) {
      return { status: 203, contentType: FORM_TYPE, text: toFormUrlEncoded(echo) };
    }
    const exact = echo.arrayOfFloatExample.some((value) => typeof value === 'bigint');
    return { status: written.created ? 201 : 200, contentType: `${JSON_TYPE}; charset=utf-8`, text: stringifyJson(echo, exact) };
  }
}
