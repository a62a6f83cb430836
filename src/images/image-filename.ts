import { randomInt } from 'node:crypto';
import { extensionOf, type ImageType } from './image-format.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const MAX_BASE_LENGTH = 100;
const DEFAULT_BASE = 'image';

/** Six characters of [A-Za-z0-9] from the system's secure random source. */
export function randomSuffix(): string {
  let suffix = '';
  for (let i = 0; i < 6; i++) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return suffix;
}

/**
 * The stored filename (docs/rules.md#images): `<base>-<6 random chars>.<ext>`. The base is the requested
 * name without its directory and extension, keeping only `[A-Za-z0-9._-]`, without leading dots and
 * at most 100 characters; `image` when nothing is left. The extension is the one of the image's type
 * (its real format, whatever the requested name said).
 */
export function storedFilename(requested: string | undefined, type: ImageType, suffix: string = randomSuffix()): string {
  return `${filenameBase(requested)}-${suffix}.${extensionOf(type)}`;
}

export function filenameBase(requested: string | undefined): string {
  let name = (requested ?? '').split(/[\\/]/).pop() ?? '';
  const dot = name.lastIndexOf('.');
  if (dot > 0) name = name.slice(0, dot);
  const base = name.replace(/[^A-Za-z0-9._-]/g, '').replace(/^\.+/, '').slice(0, MAX_BASE_LENGTH);
  return base === '' ? DEFAULT_BASE : base;
}
