import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList } from 'node:net';
import { forbiddenRange, parseIpAddress, type IpAddress } from './ip-address.js';
import { HostNotAllowedError, OutboundReason } from './outbound-failure.js';

/** A host's addresses when it may be connected to; else the reason (one of the fixed list) and, for the log, why. */
export type HostVerdict = { addresses: string[] } | { refusal: OutboundReason; detail: string };

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Whether a host may be connected to. The host is resolved and every address it resolves to is
 * checked before any connection: a link-local address (169.254.0.0/16, fe80::/10: cloud metadata
 * services) or "this host" (0.0.0.0/8, `::`) is refused under every spelling (ip-address.ts), and so
 * is a name resolving to one. With a list of allowed hosts, the host must also be one of its names, or
 * all its addresses in its CIDRs (an IPv4-mapped address counts as its IPv4 address). An empty list
 * allows any other host, loopback and private ranges included. Pure of Nest; `resolve` is replaceable
 * for tests.
 */
export class HostPolicy {
  private readonly names = new Set<string>();
  private readonly networks = new BlockList();
  private readonly restricted: boolean;

  constructor(
    allowed: string[],
    private readonly resolve: (host: string) => Promise<string[]> = resolveAll,
  ) {
    this.restricted = allowed.length > 0;
    for (const entry of allowed) {
      const [host, bits] = entry.split('/');
      const address = parseIpAddress(host);
      const family = address?.family === 6 ? 'ipv6' : 'ipv4';
      if (address && bits !== undefined) this.networks.addSubnet(address.text, Number(bits), family);
      else if (address) this.networks.addAddress(address.text, family);
      else this.names.add(host.toLowerCase().replace(/\.$/, ''));
    }
  }

  /**
   * The host's addresses when every one of them is allowed. A client that connects to these very
   * addresses (through `lookup`) leaves no gap between the check and the connection for a name that
   * resolves differently the second time (DNS rebinding).
   */
  async check(host: string): Promise<HostVerdict> {
    const name = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
    const literal = parseIpAddress(name);
    let addresses: Array<IpAddress | undefined>;
    try {
      addresses = literal ? [literal] : (await this.resolve(name)).map(parseIpAddress);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { refusal: OutboundReason.couldNotConnect, detail: `the host '${name}' could not be resolved` };
    for (const address of addresses) {
      const forbidden = address ? forbiddenRange(address) : 'an address that is not one';
      if (forbidden) return { refusal: OutboundReason.hostNotAllowed, detail: `the host '${name}' ${literal ? 'is' : 'resolves to'} ${forbidden}` };
    }
    const checked = addresses as IpAddress[];
    if (this.restricted && !this.names.has(name) && !checked.every((a) => this.listed(a))) {
      return { refusal: OutboundReason.hostNotAllowed, detail: `the host '${name}' is not among the allowed hosts` };
    }
    return { addresses: checked.map((a) => a.text) };
  }

  /**
   * A `lookup` for net.connect, tls.connect and undici's connector: resolves through `check`, so a
   * connection goes only to checked addresses; a refused host fails the connection with
   * HostNotAllowedError. (A connection to a literal address does not ask it: check those first.)
   */
  readonly lookup = (hostname: string, options: LookupOptions | number, callback: LookupCallback): void => {
    const all = typeof options === 'object' && options.all === true;
    this.check(hostname).then(
      (verdict) => {
        if ('refusal' in verdict) {
          const error = verdict.refusal === OutboundReason.hostNotAllowed ? new HostNotAllowedError(verdict.detail) : Object.assign(new Error(verdict.detail), { code: 'ENOTFOUND' });
          return callback(error, all ? [] : '');
        }
        const addresses = verdict.addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: Error) => callback(error, all ? [] : ''),
    );
  };

  private listed(address: IpAddress): boolean {
    if (address.sameHost && address.embedded && this.networks.check(address.embedded, 'ipv4')) return true;
    return this.networks.check(address.text, address.family === 6 ? 'ipv6' : 'ipv4');
  }
}

async function resolveAll(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);
}
