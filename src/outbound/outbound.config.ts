import { isIP } from 'node:net';
import { configSection } from '../config/env-reader.js';

/** Where the server may connect (webhooks, brokers, forwarded actions, extensions). */
export interface OutboundConfig {
  /**
   * `OUTBOUND_DESTINATION_HOSTS` (formerly `SUBSCRIPTION_DESTINATION_HOSTS`, still read when the new
   * one is unset): the host names and CIDRs a destination a project names may have; empty = any host
   * but link-local and "this host" ones, which are refused whatever the list says.
   */
  destinationHosts: string[];
}

export const outboundConfig = configSection('outbound', (read): OutboundConfig => {
  const name = read.string('OUTBOUND_DESTINATION_HOSTS') !== undefined ? 'OUTBOUND_DESTINATION_HOSTS' : 'SUBSCRIPTION_DESTINATION_HOSTS';
  const destinationHosts = read.list(name);
  for (const entry of destinationHosts) {
    if (!isHostEntry(entry)) read.problems.push(`${name}: '${entry}' is neither a host name nor a CIDR (10.0.0.0/8, fd00::/8)`);
  }
  return { destinationHosts: destinationHosts.map((h) => h.toLowerCase()) };
});

function isHostEntry(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0) return false;
  if (bits !== undefined) {
    const family = isIP(address);
    const n = Number(bits);
    return family !== 0 && /^\d+$/.test(bits) && n <= (family === 4 ? 32 : 128);
  }
  return isIP(address) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$/.test(address);
}
