/*
 * The two payload formats (docs/change-log-and-subscriptions.md#subscriptions), as text: the Platform payload is built by the
 * database from the message (exact 64-bit integers, members in their order) and embedded as is, so a
 * payload is never parsed and re-serialised on the delivery path.
 */

/** A notification as the queue holds it. `type` is `message.<MessageType>` or `change.<Created|Updated|Deleted>`. */
export interface QueuedNotification {
  id: string;
  projectKey: string;
  resourceId: string;
  type: string;
  sequenceNumber: number;
  /** When its change was recorded (ISO 8601). */
  createdAt: string;
  /** The Platform payload, JSON text. */
  payload: string;
}

export interface NotificationFormat {
  type: 'Platform' | 'CloudEvents';
  cloudEventsVersion?: '1.0';
}

export interface RenderedNotification {
  id: string;
  body: string;
  contentType: string;
}

const PLATFORM_TYPE = 'application/json';
const CLOUDEVENTS_TYPE = 'application/cloudevents+json';

/** `sequence` of a CloudEvent: the sequence number zero-padded to 19 digits, so text order is number order. */
export function cloudEventsSequence(sequenceNumber: number): string {
  return String(sequenceNumber).padStart(19, '0');
}

export function renderNotification(format: NotificationFormat, n: QueuedNotification, namespace: string): RenderedNotification {
  if (format.type === 'Platform') return { id: n.id, body: n.payload, contentType: PLATFORM_TYPE };
  const [kind, name] = splitType(n.type);
  const members: Record<string, string> = {
    specversion: '1.0',
    id: n.id,
    type: `${namespace}.resource.${kind}.${name}`,
    source: `/${n.projectKey}/resource`,
    subject: n.resourceId,
    time: n.createdAt,
    sequence: cloudEventsSequence(n.sequenceNumber),
  };
  if (kind === 'message') members.dataref = `/${n.projectKey}/messages/${n.id}`;
  return { id: n.id, body: `${JSON.stringify(members).slice(0, -1)},"data":${n.payload}}`, contentType: CLOUDEVENTS_TYPE };
}

/**
 * The test notification sent on create and `changeDestination`: Platform `{notificationType:
 * "ResourceCreated", projectKey, resource: {typeId: "subscription", id}}`; CloudEvents: that payload as
 * `data`, `subject` the subscription id.
 */
export function renderTestNotification(
  format: NotificationFormat,
  test: { id: string; projectKey: string; subscriptionId: string; time: string },
  namespace: string,
): RenderedNotification {
  const payload = JSON.stringify({ notificationType: 'ResourceCreated', projectKey: test.projectKey, resource: { typeId: 'subscription', id: test.subscriptionId } });
  if (format.type === 'Platform') return { id: test.id, body: payload, contentType: PLATFORM_TYPE };
  const members = {
    specversion: '1.0',
    id: test.id,
    type: `${namespace}.subscription.change.Created`,
    source: `/${test.projectKey}/subscriptions`,
    subject: test.subscriptionId,
    time: test.time,
  };
  return { id: test.id, body: `${JSON.stringify(members).slice(0, -1)},"data":${payload}}`, contentType: CLOUDEVENTS_TYPE };
}

function splitType(type: string): [string, string] {
  const dot = type.indexOf('.');
  return [type.slice(0, dot), type.slice(dot + 1)];
}
