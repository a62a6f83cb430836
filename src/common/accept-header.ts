/**
 * Content negotiation on `Accept` (RFC 9110, section 12.5.1): media ranges with q-values. A media type's
 * quality is that of the most specific range matching it (`type/subtype` over `type/*` over `*\/*`);
 * parameters other than `q` are ignored.
 */

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  /** Position in the header: earlier wins a tie. */
  position: number;
}

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The well-formed ranges of an Accept header; malformed ones are skipped. */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  header.split(',').forEach((part, position) => {
    const [mediaType, ...params] = part.split(';').map((s) => s.trim());
    const slash = mediaType.indexOf('/');
    if (slash <= 0) return;
    const type = mediaType.slice(0, slash).toLowerCase();
    const subtype = mediaType.slice(slash + 1).toLowerCase();
    if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) return;
    let q = 1;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq > 0 && param.slice(0, eq).trim().toLowerCase() === 'q') {
        const value = param.slice(eq + 1).trim();
        if (!QVALUE.test(value)) return;
        q = Number(value);
      }
    }
    ranges.push({ type, subtype, q, position });
  });
  return ranges;
}

interface Match {
  q: number;
  specificity: number;
  position: number;
}

/** How `ranges` rate `mediaType`: the most specific matching range decides; undefined when none matches. */
function rate(ranges: MediaRange[], mediaType: string): Match | undefined {
  const [type, subtype] = mediaType.toLowerCase().split('/');
  let best: Match | undefined;
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' ? 0 : -1;
    if (specificity < 0) continue;
    if (!best || specificity > best.specificity || (specificity === best.specificity && range.q > best.q)) {
      best = { q: range.q, specificity, position: range.position };
    }
  }
  return best;
}

/** Whether the header allows `mediaType` (absent or empty → everything is allowed). */
export function accepts(header: string | undefined, mediaType: string): boolean {
  if (header === undefined || header.trim() === '') return true;
  const match = rate(parseAccept(header), mediaType);
  return match !== undefined && match.q > 0;
}

/**
 * The candidate the client prefers: highest quality, then the more specific range, then the range
 * listed first, then the candidates' own order. Absent header or nothing acceptable → the first.
 */
export function preferredMediaType<T extends string>(header: string | undefined, candidates: readonly [T, ...T[]]): T {
  if (header === undefined || header.trim() === '') return candidates[0];
  const ranges = parseAccept(header);
  let best: { candidate: T; match: Match } | undefined;
  for (const candidate of candidates) {
    const match = rate(ranges, candidate);
    if (!match || match.q <= 0) continue;
    if (
      !best ||
      match.q > best.match.q ||
      (match.q === best.match.q && match.specificity > best.match.specificity) ||
      (match.q === best.match.q && match.specificity === best.match.specificity && match.position < best.match.position)
    ) {
      best = { candidate, match };
    }
  }
  return best?.candidate ?? candidates[0];
}
