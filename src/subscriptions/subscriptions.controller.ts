import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ApiErrors } from '../common/error.dto.js';
import { PageQueryDto } from '../common/page-query.dto.js';
import { ProjectKey } from '../common/project-key.js';
import { RequestBody } from '../common/request-body.js';
import { RequireScope } from '../auth/access.decorator.js';
import {
  DeleteSubscriptionQueryDto,
  DESTINATION_CLASSES,
  SUBSCRIPTION_ACTION_CLASSES,
  SUBSCRIPTION_DRAFT_EXAMPLE,
  SubscriptionDraftDto,
  SubscriptionHealthDto,
  SubscriptionPageDto,
  SubscriptionResponseDto,
  SubscriptionUpdateDto,
} from './subscription.dto.js';
import { SubscriptionsService } from './subscriptions.service.js';

const READ = ['manage_subscriptions', 'view_subscriptions'] as const;

/** The reasons a refused destination or a failed delivery gives: the server's words, never what answered. */
const REASONS =
  '`host not allowed`, `could not connect`, `TLS failed`, `timed out`, `answered HTTP <status>` (redirects are not followed), ' +
  'and for brokers `the exchange does not exist`, `no stream captures the subject`, `the broker refused the credentials`, ' +
  '`the broker refused access to the virtual host`, `the broker refused the message`';

const DESTINATION_CHECKS =
  'The destination\'s host must be allowed (the operator\'s OUTBOUND_DESTINATION_HOSTS, if set; never a link-local address, 169.254.0.0/16 or fe80::/10, ' +
  'nor 0.0.0.0/8 or `::`, under any spelling: IPv4-mapped, IPv4-compatible, NAT64, 6to4, or a name resolving to one), else 400 `destination: host not allowed.`; ' +
  'then it must accept a test notification within the delivery timeout (10 s by default), else 400 `destination: the test notification was not accepted: <reason>.` ' +
  `with one reason of the fixed list: ${REASONS}. Nothing is stored on a 400.`;

@ApiTags('subscriptions')
@ApiProjectKeyParam()
@ApiExtraModels(...Object.values(DESTINATION_CLASSES), ...Object.values(SUBSCRIPTION_ACTION_CLASSES))
@Controller(':projectKey/subscriptions')
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Post()
  @HttpCode(201)
  @RequireScope(['manage_subscriptions'])
  @ApiOperation({
    summary: 'Creates a subscription',
    description:
      `${DESTINATION_CHECKS} ` +
      'An HTTP destination\'s secret (whsec_…) is answered here whole, then masked. At most 50 subscriptions per project (MaxResourceLimitExceeded).',
  })
  @ApiBody({ type: SubscriptionDraftDto, examples: { webhook: { summary: 'A webhook receiving messages and changes as CloudEvents', value: SUBSCRIPTION_DRAFT_EXAMPLE } } })
  @ApiResponse({ status: 201, type: SubscriptionResponseDto })
  @ApiErrors(400, 413, 415)
  createSubscription(@ProjectKey() projectKey: string, @RequestBody() draft: SubscriptionDraftDto): Promise<SubscriptionResponseDto> {
    return this.subscriptions.create(projectKey, draft);
  }

  @Get()
  @RequireScope([...READ])
  @ApiOperation({ summary: 'Lists the project\'s subscriptions, oldest first' })
  @ApiResponse({ status: 200, type: SubscriptionPageDto })
  @ApiErrors(400)
  listSubscriptions(@ProjectKey() projectKey: string, @Query() query: PageQueryDto): Promise<SubscriptionPageDto> {
    return this.subscriptions.list(projectKey, query);
  }

  @Get('key=:key')
  @RequireScope([...READ])
  @ApiOperation({ summary: 'Gets a subscription by key' })
  @ApiParam({ name: 'key' })
  @ApiResponse({ status: 200, type: SubscriptionResponseDto })
  @ApiErrors(400, 404)
  getSubscriptionByKey(@ProjectKey() projectKey: string, @Param('key') key: string): Promise<SubscriptionResponseDto> {
    return this.subscriptions.getByKey(projectKey, key);
  }

  @Get(':id')
  @RequireScope([...READ])
  @ApiOperation({ summary: 'Gets a subscription' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 200, type: SubscriptionResponseDto })
  @ApiErrors(400, 404)
  getSubscription(@ProjectKey() projectKey: string, @Param('id') id: string): Promise<SubscriptionResponseDto> {
    return this.subscriptions.get(projectKey, id);
  }

  @Get(':id/health')
  @RequireScope([...READ])
  @ApiOperation({
    summary: 'How delivery to the subscription\'s destination goes',
    description:
      'Healthy; TemporaryError while retrying; ConfigurationError when the destination refuses for a lasting reason (4xx other than 408/429, a redirect, unknown exchange or subject, authentication, a host not allowed). ' +
      `\`lastError.message\` is one reason of the fixed list: ${REASONS}.`,
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 200, type: SubscriptionHealthDto })
  @ApiErrors(400, 404)
  getSubscriptionHealth(@ProjectKey() projectKey: string, @Param('id') id: string): Promise<SubscriptionHealthDto> {
    return this.subscriptions.health(projectKey, id);
  }

  @Post(':id')
  @HttpCode(200)
  @RequireScope(['manage_subscriptions'])
  @ApiOperation({
    summary: 'Updates a subscription with update actions',
    description:
      'Actions: changeDestination, setMessages, setChanges, setKey, setFormat. All or nothing; 409 when `version` is not the current one. ' +
      `A new destination is checked and tested as on create: ${DESTINATION_CHECKS}`,
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiBody({ type: SubscriptionUpdateDto })
  @ApiResponse({ status: 200, type: SubscriptionResponseDto })
  @ApiErrors(400, 404, 409, 413, 415)
  updateSubscription(@ProjectKey() projectKey: string, @Param('id') id: string, @RequestBody() request: SubscriptionUpdateDto): Promise<SubscriptionResponseDto> {
    return this.subscriptions.update(projectKey, id, request);
  }

  @Delete(':id')
  @RequireScope(['manage_subscriptions'])
  @ApiOperation({ summary: 'Deletes a subscription and its undelivered notifications' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 200, type: SubscriptionResponseDto })
  @ApiErrors(400, 404, 409)
  deleteSubscription(@ProjectKey() projectKey: string, @Param('id') id: string, @Query() query: DeleteSubscriptionQueryDto): Promise<SubscriptionResponseDto> {
    return this.subscriptions.delete(projectKey, id, query.version);
  }
}
