/**
 * The event id of a live stream (docs/live-changes.md): opaque to clients, ordered by commit. A message's
 * position is `(at, resource id, sequence number)` where `at` is the latest `createdAt` among the messages of
 * its resource up to it (its own included). Per resource, `at` never decreases and ties go by sequence
 * number, so a resource's messages keep their order; and a message's position is fixed by the change log
 * alone, so every server process gives it the same id and can resume after it.
 *
 * Written as fixed-width lowercase hex, `<at ms:12>-<resource id:32>-<sequence number:8>`, so that the
 * order of the strings is the order of the stream.
 */
export interface LiveCursor {
  /** Milliseconds since the epoch. */
  at: number;
  /** The resource id, a UUID with its dashes. */
  resourceId: string;
  sequenceNumber: number;
}

const CURSOR = /^([0-9a-f]{12})-([0-9a-f]{32})-([0-9a-f]{8})$/;

export function formatCursor(cursor: LiveCursor): string {
  const id = cursor.resourceId.replace(/-/g, '');
  return `${cursor.at.toString(16).padStart(12, '0')}-${id}-${cursor.sequenceNumber.toString(16).padStart(8, '0')}`;
}

/** The cursor `text` spells, or undefined when it is not one this server wrote. */
export function parseCursor(text: string): LiveCursor | undefined {
  const match = CURSOR.exec(text);
  if (!match) return undefined;
  const at = parseInt(match[1], 16);
  const sequenceNumber = parseInt(match[3], 16);
  // Dates PostgreSQL and JavaScript both hold exactly; sequence numbers are positive 32-bit integers.
  if (at > 8_640_000_000_000 || sequenceNumber < 1 || sequenceNumber > 2_147_483_647) return undefined;
  const h = match[2];
  const resourceId = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return { at, resourceId, sequenceNumber };
}

/** Whether `a` comes before `b` in the stream (UUIDs in their usual spelling compare as their bytes). */
export function cursorBefore(a: LiveCursor, b: LiveCursor): boolean {
  if (a.at !== b.at) return a.at < b.at;
  if (a.resourceId !== b.resourceId) return a.resourceId < b.resourceId;
  return a.sequenceNumber < b.sequenceNumber;
}
