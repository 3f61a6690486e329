'use client';
/**
 * The queue page's notifications panel: whether problems of this queue are sent to the
 * webhooks, and (operators) the mute that silences them until someone unmutes.
 */
import { useCanMutate } from '../session/session-context';
import { useMuteQueue, useQueueNotifications } from './use-notifications';

export function QueueNotificationsPanel({ prefix, name }: { prefix: string; name: string }) {
  const canOperate = useCanMutate('operator');
  const { data, error } = useQueueNotifications(prefix, name);
  const mute = useMuteQueue();
  const muted = data?.muted ?? null;
  return (
    <section className="panel" aria-labelledby="notifications-heading" data-testid="notifications">
      <h2 id="notifications-heading">Notifications</h2>
      {error && (
        <p role="alert" className="notice error">
          {error.message}
        </p>
      )}
      {!data && !error && <p aria-live="polite">Loading…</p>}
      {data && (
        <p data-testid="notifications-state">
          {!data.enabled
            ? 'No webhook is configured: nothing is sent for any queue.'
            : muted
              ? `Muted by ${muted.by || 'someone'} since ${new Date(muted.at).toLocaleString()}: nothing about this queue is sent.`
              : 'Problems of this queue are sent to the webhooks when they start and clear.'}
        </p>
      )}
      {data && canOperate && (
        <div className="action-row">
          <button
            type="button"
            disabled={mute.isPending}
            onClick={() => mute.mutate({ prefix, name, mute: !muted })}
          >
            {muted ? 'Unmute notifications' : 'Mute notifications'}
          </button>
        </div>
      )}
      {mute.error && (
        <p role="alert" className="notice error">
          {mute.error.message}
        </p>
      )}
    </section>
  );
}
