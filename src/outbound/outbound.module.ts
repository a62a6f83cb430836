import { Module } from '@nestjs/common';
import { OutboundPolicy } from './outbound-policy.service.js';

/** Where the server may connect: the policy every outbound client asks first. */
@Module({
  providers: [OutboundPolicy],
  exports: [OutboundPolicy],
})
export class OutboundModule {}
