import { BlockList, isIP } from 'node:net';

/**
 * IP addresses as the outbound policy sees them: any spelling of a literal address is read into its
 * canonical text, and an IPv6 address that carries an IPv4 address (IPv4-mapped, IPv4-translated,
 * IPv4-compatible, NAT64, 6to4, Teredo) also yields that IPv4 address, so that a range refused for
 * IPv4 is refused under every IPv6 spelling as well. Pure: no I/O, no Nest.
 */

/** A literal address, canonical: dotted quad for IPv4, RFC 5952 text (lowercase, `::`) for IPv6. */
export interface IpAddress {
  family: 4 | 6;
  text: string;
  /** The IPv4 address an IPv6 address embeds, if any. */
  embedded?: string;
  /** IPv4-mapped or IPv4-translated: a connection to it reaches `embedded` itself. */
  sameHost?: boolean;
}

/**
 * Reads a literal address, with or without brackets, or undefined when the text is a host name.
 * IPv4 is read as the system resolver reads it (inet_aton): one to four parts, each decimal, octal
 * (leading 0) or hexadecimal (0x), so `0251.0376.0251.0376`, `0xa9fea9fe` and `2852039166` are all
 * 169.254.169.254. IPv6 accepts what Node accepts (leading zeros, uppercase, a dotted tail); a zone
 * (`%eth0`) is dropped.
 */
export function parseIpAddress(input: string): IpAddress | undefined {
  const text = input.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { family: 4, text: ipv4Text(v4) };
  const v6 = parseIpv6(text);
  if (!v6) return undefined;
  const embedded = embeddedIpv4(v6);
  return { family: 6, text: ipv6Text(v6), ...embedded };
}

/** Why an address may never be connected to, or undefined. */
export function forbiddenRange(address: IpAddress): string | undefined {
  for (const [text, family] of [...(address.embedded ? [[address.embedded, 4] as const] : []), [address.text, address.family]] as const) {
    const kind = family === 4 ? 'ipv4' : 'ipv6';
    if (LINK_LOCAL.check(text, kind)) return `the link-local address ${text}`;
    if (THIS_HOST.check(text, kind)) return `the unspecified address ${text}`;
  }
  return undefined;
}

/** 169.254.0.0/16 and fe80::/10 (cloud metadata services live there). */
const LINK_LOCAL = blockList([['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']]);
/** 0.0.0.0/8 and `::`: "this host", which a connection reaches as the local host. */
const THIS_HOST = blockList([['0.0.0.0', 8, 'ipv4'], ['::', 128, 'ipv6']]);

function blockList(subnets: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [network, bits, family] of subnets) list.addSubnet(network, bits, family);
  return list;
}

function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => !/^(0x[0-9a-f]+|0[0-7]*|[1-9][0-9]*)$/i.test(p))) return undefined;
  const values = parts.map((p) => (/^0x/i.test(p) ? parseInt(p.slice(2), 16) : p.length > 1 && p.startsWith('0') ? parseInt(p, 8) : Number(p)));
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return undefined;
  return values.reduce((sum, v, i) => sum + v * 256 ** (3 - i), 0) + last;
}

function ipv4Text(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** Eight 16-bit groups. */
function parseIpv6(input: string): number[] | undefined {
  const text = input.replace(/%.*$/, '');
  if (isIP(text) !== 6) return undefined;
  let groups = text;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = parseIpv4(tail[1])!;
    groups = text.slice(0, -tail[1].length) + `${(Math.floor(v4 / 65536)).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const [head, rest] = groups.split('::') as [string, string | undefined];
  const read = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const front = read(head);
  const back = rest === undefined ? [] : read(rest);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function ipv6Text(groups: number[]): string {
  // The longest run of two or more zero groups becomes `::` (RFC 5952).
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at === -1) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

/** The IPv4 address of an IPv6 address's 32 bits starting at group `at`. */
function v4At(groups: number[], at: number, xor = 0): string {
  return ipv4Text((((groups[at] << 16) | groups[at + 1]) ^ xor) >>> 0);
}

function embeddedIpv4(g: number[]): Pick<IpAddress, 'embedded' | 'sameHost'> {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765).
  if (zeros(0, 5) && g[5] === 0xffff) return { embedded: v4At(g, 6), sameHost: true };
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return { embedded: v4At(g, 6), sameHost: true };
  // ::a.b.c.d (IPv4-compatible, deprecated); `::` and `::1` are themselves.
  if (zeros(0, 6) && (g[6] !== 0 || g[7] > 1)) return { embedded: v4At(g, 6) };
  // NAT64: 64:ff9b::/96 (well-known) and 64:ff9b:1::/48 (local use), the IPv4 address last.
  if (g[0] === 0x64 && g[1] === 0xff9b && (zeros(2, 6) || g[2] === 1)) return { embedded: v4At(g, 6) };
  // 6to4: 2002:AABB:CCDD::/48.
  if (g[0] === 0x2002) return { embedded: v4At(g, 1) };
  // Teredo: 2001:0::/32, the client's address last, inverted (the server's, at 32..63, is not the destination).
  if (g[0] === 0x2001 && g[1] === 0) return { embedded: v4At(g, 6, 0xffffffff) };
  return {};
}
