import { Inject, Injectable } from '@nestjs/common';
import { HostPolicy } from './host-policy.js';
import { outboundConfig, type OutboundConfig } from './outbound.config.js';

/**
 * Who chose a destination: a project (a webhook, a broker, an extension: its host must also be among
 * OUTBOUND_DESTINATION_HOSTS when that is set), or the operator (a forwarded action's backend, from
 * ACTIONS_FILE: any host but the ones never allowed).
 */
type DestinationOrigin = 'project' | 'operator';

/**
 * The one place that decides where the server may connect. Every outbound client asks its origin's
 * HostPolicy before connecting (`check`), and connects through its `lookup`, to the addresses it
 * checked.
 */
@Injectable()
export class OutboundPolicy {
  private readonly policies: Record<DestinationOrigin, HostPolicy>;

  constructor(@Inject(outboundConfig.KEY) config: OutboundConfig) {
    this.policies = { project: new HostPolicy(config.destinationHosts), operator: new HostPolicy([]) };
  }

  for(origin: DestinationOrigin): HostPolicy {
    return this.policies[origin];
  }
}
