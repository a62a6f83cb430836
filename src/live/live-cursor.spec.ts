import { cursorBefore, formatCursor, parseCursor, type LiveCursor } from './live-cursor.js';

describe('live cursor', () => {
  const a: LiveCursor = { at: 1_764_000_000_123, resourceId: '8d5b1f0e-6c1a-4f3e-bb0a-1d2e3f4a5b6c', sequenceNumber: 2 };

  it('reads back what it writes, as fixed-width lowercase hex', () => {
    const text = formatCursor(a);
    expect(text).toBe('019ab697e87b-8d5b1f0e6c1a4f3ebb0a1d2e3f4a5b6c-00000002');
    expect(parseCursor(text)).toEqual(a);
  });

  it('orders its strings as the stream: by time, then resource id, then sequence number', () => {
    const cursors: LiveCursor[] = [
      { ...a, at: a.at + 1, sequenceNumber: 1 },
      { ...a, sequenceNumber: 10 },
      a,
      { ...a, resourceId: 'ffffffff-0000-4000-8000-000000000000', sequenceNumber: 1 },
      { ...a, resourceId: '00000000-0000-4000-8000-000000000000', sequenceNumber: 300 },
      { ...a, at: 0, sequenceNumber: 2_147_483_647 },
    ];
    const byObject = [...cursors].sort((x, y) => (cursorBefore(x, y) ? -1 : cursorBefore(y, x) ? 1 : 0));
    const byText = cursors.map(formatCursor).sort();
    expect(byText).toEqual(byObject.map(formatCursor));
    expect(byText.map(parseCursor)).toEqual(byObject);
    expect(cursorBefore(a, a)).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['upper case', formatCursor(a).toUpperCase()],
    ['a field too short', '19aae7c0e7b-8d5b1f0e6c1a4f3ebb0a1d2e3f4a5b6c-00000002'],
    ['dashes in the resource id', '019aae7c0e7b-8d5b1f0e-6c1a-4f3e-bb0a-1d2e3f4a5b6c-00000002'],
    ['text around it', ` ${formatCursor(a)}`],
    ['sequence number 0', '019aae7c0e7b-8d5b1f0e6c1a4f3ebb0a1d2e3f4a5b6c-00000000'],
    ['sequence number past 32-bit signed', '019aae7c0e7b-8d5b1f0e6c1a4f3ebb0a1d2e3f4a5b6c-80000000'],
    ['a time past what dates hold', 'ffffffffffff-8d5b1f0e6c1a4f3ebb0a1d2e3f4a5b6c-00000002'],
    ['not hex', '019aae7c0e7g-8d5b1f0e6c1a4f3ebb0a1d2e3f4a5b6c-00000002'],
  ])('refuses a malformed cursor: %s', (_what, text) => {
    expect(parseCursor(text)).toBeUndefined();
  });
});
