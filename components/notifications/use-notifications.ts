'use client';
/** The notification status, a queue's mute, and the mutations on them (lib/http/notifications.ts). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  NotificationsStatus,
  QueueNotifications,
  TestNotificationResponse,
} from '@/lib/api-types';
import { getJson, postJson } from '../api-client';
import { usePollingInterval } from '../settings/polling';

/** Keys of their own: the notifications page, and a queue's (under the queue page's branch). */
const notificationKeys = {
  status: ['notifications'] as const,
  queue: (prefix: string, name: string) =>
    ['queues', 'page', prefix, name, 'notifications'] as const,
};

const queuePath = (prefix: string, name: string) =>
  `/api/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(name)}/notifications`;

export function useNotificationsStatus() {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: notificationKeys.status,
    queryFn: ({ signal }) => getJson<NotificationsStatus>('/api/notifications', signal),
    refetchInterval,
  });
}

export function useQueueNotifications(prefix: string, name: string) {
  return useQuery({
    queryKey: notificationKeys.queue(prefix, name),
    queryFn: ({ signal }) => getJson<QueueNotifications>(queuePath(prefix, name), signal),
  });
}

/** Mutes or unmutes a queue; both the queue's panel and the notifications page refresh. */
export function useMuteQueue() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { prefix: string; name: string; mute: boolean }) =>
      postJson<QueueNotifications>(
        `${queuePath(input.prefix, input.name)}/${input.mute ? 'mute' : 'unmute'}`,
      ),
    onSuccess: (answer, input) => {
      client.setQueryData(notificationKeys.queue(input.prefix, input.name), answer);
      void client.invalidateQueries({ queryKey: notificationKeys.status });
    },
  });
}

export function useSendTestNotification() {
  return useMutation({
    mutationFn: () => postJson<TestNotificationResponse>('/api/notifications/test'),
  });
}
