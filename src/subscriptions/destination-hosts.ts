import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where the server may connect (CONTRACT.md §12, `SUBSCRIPTION_DESTINATION_HOSTS`). The host name is
 * resolved and every address it resolves to is checked before any connection: a name that resolves to
 * a link-local address (169.254.0.0/16, fe80::/10: cloud metadata services) is refused like the address
 * itself. With a list, the host must be one of its names, or all its addresses in one of its CIDRs.
 * Pure of Nest; `resolve` is replaceable for tests.
 */
export class DestinationHosts {
  private readonly names = new Set<string>();
  private readonly networks = new BlockList();
  private readonly restricted: boolean;
  private static readonly LINK_LOCAL = (() => {
    const list = new BlockList();
    list.addSubnet('169.254.0.0', 16, 'ipv4');
    list.addSubnet('fe80::', 10, 'ipv6');
    return list;
  })();

  constructor(
    entries: string[],
    private readonly resolve: (host: string) => Promise<string[]> = resolveAll,
  ) {
    this.restricted = entries.length > 0;
    for (const entry of entries) {
      const [address, bits] = entry.split('/');
      if (bits !== undefined) this.networks.addSubnet(address, Number(bits), isIP(address) === 6 ? 'ipv6' : 'ipv4');
      else if (isIP(address)) this.networks.addAddress(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
      else this.names.add(address.replace(/\.$/, ''));
    }
  }

  /** Undefined when the host may be connected to; else why not (for the 400's message). */
  async refusal(host: string): Promise<string | undefined> {
    const verdict = await this.check(host);
    return 'refusal' in verdict ? verdict.refusal : undefined;
  }

  /**
   * The host's addresses when every one of them is allowed; else why not. A transport that connects to
   * these very addresses (the webhook transport's lookup) leaves no gap between the check and the
   * connection for a name that resolves differently the second time.
   */
  async check(host: string): Promise<{ addresses: string[] } | { refusal: string }> {
    const name = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
    let addresses: string[];
    try {
      addresses = isIP(name) ? [name] : await this.resolve(name);
    } catch {
      return { refusal: `the host '${name}' could not be resolved` };
    }
    if (addresses.length === 0) return { refusal: `the host '${name}' could not be resolved` };
    const checked = addresses.map(unmapped);
    const linkLocal = checked.find((a) => DestinationHosts.LINK_LOCAL.check(a, family(a)));
    if (linkLocal) return { refusal: `the host '${name}' is not allowed: it resolves to the link-local address ${linkLocal}` };
    if (!this.restricted || this.names.has(name)) return { addresses };
    if (checked.some((a) => !this.networks.check(a, family(a)))) return { refusal: `the host '${name}' is not allowed (SUBSCRIPTION_DESTINATION_HOSTS)` };
    return { addresses };
  }
}

function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}
