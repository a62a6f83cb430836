/**
 * Where image bytes live: storage every server process shares. Content-addressed: bytes are stored
 * once per project under their SHA-256, so `put` of bytes already stored does nothing. The default is
 * the database (`DatabaseImageStore`); an S3-compatible store implements the same two methods with
 * the key `<projectKey>/<sha256>`.
 */
export interface ImageStore {
  /** Stores `bytes` (whose SHA-256 is `sha256`, hex) for the project, unless already there. */
  put(projectKey: string, sha256: string, bytes: Buffer): Promise<void>;
  /** The bytes, or undefined when nothing is stored under that address. */
  get(projectKey: string, sha256: string): Promise<Buffer | undefined>;
  /**
   * Deletes the bytes that no image has used for at least `idleMs` (bytes several images share stay
   * while one of them exists), at most `limit` at a time; how many were deleted.
   */
  reclaim(idleMs: number, limit: number): Promise<number>;
}

/** Injection token of the configured `ImageStore`. */
export const IMAGE_STORE = Symbol('IMAGE_STORE');
