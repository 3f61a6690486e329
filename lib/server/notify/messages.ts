/**
 * What a notification says, and the two bodies it is sent as: generic JSON (for any receiver:
 * an incident tool, a chat bridge, a script) and a Slack-compatible incoming-webhook body
 * (`text` plus `blocks`, which Mattermost and Rocket.Chat accept too). docs/observability.md,
 * "Notifications", shows both. Messages are the overview's own sentences (counts and times,
 * never job data), passed through the console's redaction once more before they leave.
 */
import type { QueueProblemKind, QueueProblemSeverity } from 'oxmq/admin';
import type { WebhookFormat } from './webhooks';

/** The overview's problems that are notified, and the one the notifier derives ("paused too long"). */
const NOTIFY_KINDS = [
  'no-worker',
  'old-backlog',
  'failure-spike',
  'stalled-recently',
  'workers-missing-heartbeats',
  'paused-too-long',
] as const satisfies readonly (QueueProblemKind | 'paused-too-long')[];
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

const NOTIFY_KIND_TITLES: Record<NotifyKind, string> = {
  'no-worker': 'No worker',
  'old-backlog': 'Old backlog',
  'failure-spike': 'Failure spike',
  'stalled-recently': 'Stalled jobs',
  'workers-missing-heartbeats': 'Workers missing heartbeats',
  'paused-too-long': 'Paused too long',
};

export function isNotifyKind(kind: string): kind is NotifyKind {
  return (NOTIFY_KINDS as readonly string[]).includes(kind);
}

type NotificationEvent = 'problem.started' | 'problem.cleared' | 'test';

export interface Notification {
  event: NotificationEvent;
  /** Stable for one problem from its start to its clear: `<prefix>:<queue>:<kind>:<startedAt>`. */
  id: string;
  prefix: string | null;
  queue: string | null;
  kind: NotifyKind | null;
  severity: QueueProblemSeverity;
  /** One sentence, redacted. */
  message: string;
  /** ms since the epoch. */
  startedAt: number | null;
  clearedAt: number | null;
  /** The queue's page in the console (the console's home page for a test). */
  link: string;
}

/** The console page of a queue, under the origin users open (NEXTAUTH_URL). */
export function queueLink(consoleUrl: string, prefix: string, queue: string): string {
  return `${consoleUrl.replace(/\/+$/, '')}/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(queue)}`;
}

export function problemId(prefix: string, queue: string, kind: NotifyKind, startedAt: number) {
  return `${prefix}:${queue}:${kind}:${startedAt}`;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The generic JSON body. */
function jsonBody(notification: Notification, sentAt: number) {
  return {
    source: 'oxmq',
    event: notification.event,
    id: notification.id,
    prefix: notification.prefix,
    queue: notification.queue,
    kind: notification.kind,
    severity: notification.severity,
    message: notification.message,
    startedAt: iso(notification.startedAt),
    clearedAt: iso(notification.clearedAt),
    link: notification.link,
    sentAt: new Date(sentAt).toISOString(),
  };
}

/** Slack's mrkdwn treats only these three as markup in plain text. */
function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** "2 h 5 min", "3 min", "40 s". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** The first line of a notification, as a person reads it (Slack's `text`, log lines). */
export function headline(notification: Notification): string {
  if (notification.event === 'test') return 'Test notification from the OxMQ console';
  const title = notification.kind ? NOTIFY_KIND_TITLES[notification.kind] : 'Problem';
  const where = `${notification.prefix}:${notification.queue}`;
  if (notification.event === 'problem.cleared') {
    const lasted =
      notification.startedAt !== null && notification.clearedAt !== null
        ? ` after ${formatDuration(notification.clearedAt - notification.startedAt)}`
        : '';
    return `Cleared: ${title} on ${where}${lasted}`;
  }
  return `${notification.severity === 'critical' ? 'Critical' : 'Warning'}: ${title} on ${where}`;
}

/** A Slack-compatible incoming-webhook body: `text` (the fallback and notification line) and blocks. */
function slackBody(notification: Notification) {
  const head = escapeSlack(headline(notification));
  const message = escapeSlack(notification.message);
  const linkText = notification.event === 'test' ? 'Open the console' : 'Open the queue';
  const link = `<${notification.link}|${linkText}>`;
  const when =
    notification.event === 'problem.cleared'
      ? `Cleared ${iso(notification.clearedAt)}, started ${iso(notification.startedAt)}`
      : notification.startedAt !== null
        ? `Started ${iso(notification.startedAt)}`
        : `Sent by the OxMQ console`;
  return {
    text: `${head}: ${message}`,
    blocks: [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `*${head}*\n${message}\n${link}` },
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: escapeSlack(when) }] },
    ],
  };
}

export function bodyFor(format: WebhookFormat, notification: Notification, sentAt: number) {
  return format === 'slack' ? slackBody(notification) : jsonBody(notification, sentAt);
}
