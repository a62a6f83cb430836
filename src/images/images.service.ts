import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import type { Principal } from '../common/principal.js';
import { dimensionsProblem, hasSignature, readDimensions } from './image-format.js';
import { matchesEtag, prefersAsync } from './image-headers.js';
import { storedFilename } from './image-filename.js';
import { IMAGE_STORE, type ImageStore } from './image-store.js';
import { ImageUpload, type ReceivedImage } from './image-upload.js';
import { ImageErrors } from './images.errors.js';
import { imagesConfig, type ImagesConfig } from './images.config.js';
import type { UploadImageQueryDto } from './images.dto.js';
import { ImagesRepository, type NewImage } from './images.repository.js';
import { UploadSlots } from './upload-slots.js';

interface UploadAnswer {
  status: 200 | 202;
  /** The resource (200) or `{"stringExample": "<image id>"}` (202), as JSON text. */
  json: string;
}

interface ServedImage {
  /** 304 when the client's `If-None-Match` names the current ETag. */
  status: 200 | 304;
  headers: Record<string, string>;
  body?: Buffer;
}

/**
 * Image upload. Checks in this order: sku present (the query DTO, 400) → Content-Type (415) → declared
 * size (413) → the resource exists (404) → the bytes: size while reading (413), empty or signature
 * mismatch (400), dimensions its header declares out of the limits (400). Then the bytes go to the shared
 * store, and the image is attached (200) or recorded with a pending job for the worker (202).
 */
@Injectable()
export class ImagesService {
  private readonly slots: UploadSlots;

  constructor(
    private readonly images: ImagesRepository,
    @Inject(IMAGE_STORE) private readonly store: ImageStore,
    @Inject(imagesConfig.KEY) private readonly config: ImagesConfig,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
  ) {
    this.slots = new UploadSlots(config.uploadConcurrency);
  }

  async upload(projectKey: string, query: UploadImageQueryDto, upload: ImageUpload, prefer: string | undefined, by: Principal): Promise<UploadAnswer> {
    const { maxBytes, readIdleTimeoutMs, minBytesPerSecond } = this.config;
    if (!upload.isMultipart && !upload.rawType) throw ImageErrors.unsupportedType(upload.contentType);
    upload.checkDeclaredLength(maxBytes);
    const resourceId = await this.images.findResourceIdByKey(projectKey, query.sku);
    if (!resourceId) throw ImageErrors.resourceKeyNotFound(query.sku);

    const image = await this.slots.run(async () => {
      const received = await upload.read({ maxBytes, idleTimeoutMs: readIdleTimeoutMs, minBytesPerSecond });
      const prepared = this.prepare(projectKey, resourceId, query, received, by);
      await this.store.put(projectKey, received.sha256, received.bytes);
      return prepared;
    });

    if (prefersAsync(prefer)) {
      if (!(await this.images.enqueue(image))) throw ImageErrors.resourceGone(query.sku);
      return { status: 202, json: JSON.stringify({ stringExample: image.id }) };
    }
    const json = await this.images.attachNow(image);
    if (json === undefined) throw ImageErrors.resourceGone(query.sku);
    return { status: 200, json };
  }

  /** The bytes checked against the declared type, and the Image object to attach. */
  private prepare(projectKey: string, resourceId: string, query: UploadImageQueryDto, received: ReceivedImage, by: Principal): NewImage {
    const { type, bytes } = received;
    if (bytes.length === 0) throw ImageErrors.empty();
    if (!hasSignature(type, bytes)) {
      throw ImageErrors.notOfType(type);
    }
    const dimensions = readDimensions(type, bytes);
    if (!dimensions) throw ImageErrors.corrupt(type);
    const refused = dimensionsProblem(dimensions, this.config);
    if (refused) throw ImageErrors.refusedDimensions(refused);
    const id = randomUUID();
    const createdAt = new Date().toISOString();
    const image = {
      id,
      url: `${(this.http.publicBaseUrl ?? '').replace(/\/+$/, '')}/${projectKey}/resource/images/${id}`,
      filename: storedFilename(query.filename ?? received.filename, type),
      contentType: type,
      width: dimensions.width,
      height: dimensions.height,
      size: bytes.length,
      variant: query.variant ?? 1,
      staged: query.staged ?? true,
      createdAt,
    };
    return {
      id,
      projectKey,
      resourceId,
      sha256: received.sha256,
      contentType: type,
      size: bytes.length,
      json: JSON.stringify(image),
      createdAt,
      modifiedBy: JSON.stringify({ clientId: by.clientId, customerId: by.customerId }),
    };
  }

  /** The bytes of an image of the project, or 304 when the client has them (ETag = SHA-256). */
  async serve(projectKey: string, imageId: string, ifNoneMatch: string | undefined): Promise<ServedImage> {
    const image = await this.images.findImage(projectKey, imageId);
    if (!image) throw ImageErrors.imageNotFound(imageId);
    const etag = `"${image.sha256}"`;
    const headers: Record<string, string> = {
      ETag: etag,
      'Cache-Control': 'public, max-age=31536000, immutable',
    };
    if (matchesEtag(ifNoneMatch, etag)) return { status: 304, headers };
    const bytes = await this.store.get(projectKey, image.sha256);
    if (!bytes) throw ImageErrors.bytesNotAvailable(imageId);
    return {
      status: 200,
      headers: {
        ...headers,
        'Content-Type': image.contentType,
        'Content-Length': String(bytes.length),
        'Content-Disposition': `inline; filename="${image.filename}"`,
        'X-Content-Type-Options': 'nosniff',
      },
      body: bytes,
    };
  }
}
