/** What the notification routes answer, from the console's notifier and its Redis state. */
import 'server-only';
import type { NotificationsStatus, QueueNotifications } from '@/lib/api-types';
import { getEnv } from '../env';
import { consoleNotifier, notifyRedis } from './console-notifier';
import { notifierKeys, queueMute, readMutes } from './state';

export async function queueNotifications(
  prefix: string,
  name: string,
): Promise<QueueNotifications> {
  const mute = await queueMute(notifyRedis(), prefix, name);
  return {
    enabled: consoleNotifier().enabled,
    muted: mute && { by: mute.by, at: mute.at },
  };
}

export async function notificationsStatus(): Promise<NotificationsStatus> {
  const env = getEnv();
  const notifier = consoleNotifier();
  const client = notifyRedis();
  const [senders, mutes] = await Promise.all([
    notifier.senders(),
    Promise.all(
      env.OXMQ_PREFIXES.map(async (prefix) =>
        [...(await readMutes(client, notifierKeys(prefix))).values()].map((mute) => ({
          prefix,
          ...mute,
        })),
      ),
    ),
  ]);
  return {
    enabled: notifier.enabled,
    webhooks: notifier.webhooks.map(({ label, format }) => ({ label, format })),
    intervalMs: env.OXMQ_NOTIFY_INTERVAL_MS,
    pausedAfterSeconds: env.OXMQ_NOTIFY_PAUSED_SECONDS,
    maxAttempts: env.OXMQ_NOTIFY_MAX_ATTEMPTS,
    senders,
    muted: mutes
      .flat()
      .sort((a, b) => a.prefix.localeCompare(b.prefix) || a.queue.localeCompare(b.queue)),
  };
}
