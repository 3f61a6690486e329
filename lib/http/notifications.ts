/** Notifications of queue problems to webhooks (lib/server/notify/, docs/observability.md). */
import { z } from 'zod';

const muteSchema = z.strictObject({
  /** The user who muted the queue. */
  by: z.string(),
  /** ms since the epoch. */
  at: z.number(),
});

/** GET, and POST …/mute and …/unmute, under /api/queues/:prefix/:name/notifications. */
export const queueNotificationsSchema = z.strictObject({
  /** Whether the console sends notifications at all (webhooks are configured). */
  enabled: z.boolean(),
  muted: muteSchema.nullable(),
});
export type QueueNotifications = z.infer<typeof queueNotificationsSchema>;

/** GET /api/notifications: the settings in force (never a webhook URL) and the muted queues. */
export const notificationsStatusSchema = z.strictObject({
  enabled: z.boolean(),
  webhooks: z.array(z.strictObject({ label: z.string(), format: z.enum(['json', 'slack']) })),
  intervalMs: z.number(),
  pausedAfterSeconds: z.number(),
  maxAttempts: z.number(),
  /** Per prefix: the console process holding the notifier lease (null: none now). */
  senders: z.array(
    z.strictObject({ prefix: z.string(), holder: z.string().nullable(), self: z.boolean() }),
  ),
  muted: z.array(muteSchema.extend({ prefix: z.string(), queue: z.string() })),
});
export type NotificationsStatus = z.infer<typeof notificationsStatusSchema>;

/** POST /api/notifications/test: each webhook's answer to one attempt. */
export const testNotificationResponseSchema = z.strictObject({
  results: z.array(
    z.strictObject({
      webhook: z.string(),
      format: z.enum(['json', 'slack']),
      ok: z.boolean(),
      attempts: z.number(),
      /** The HTTP status answered; 0 when none came. */
      status: z.number(),
      /** Why it failed: a code such as ECONNREFUSED, timeout or HTTP 500, never the URL. */
      error: z.string().optional(),
    }),
  ),
});
export type TestNotificationResponse = z.infer<typeof testNotificationResponseSchema>;
