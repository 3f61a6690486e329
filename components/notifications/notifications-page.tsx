'use client';
/**
 * The notifications page: the webhooks (by label: a URL may be a secret), the settings in
 * force, which console sends now, the muted queues (operators unmute them), and the admin's
 * "Send a test notification" button. docs/observability.md, Notifications.
 */
import Link from 'next/link';
import { queueHref } from '../queues/problem-strip';
import { useCanMutate } from '../session/session-context';
import { useMuteQueue, useNotificationsStatus, useSendTestNotification } from './use-notifications';

/** "30 min", "90 s". */
function seconds(value: number): string {
  return value >= 60 && value % 60 === 0 ? `${value / 60} min` : `${value} s`;
}

function TestButton() {
  const send = useSendTestNotification();
  const run = () => {
    if (window.confirm('Send a test notification to every webhook now?')) send.mutate();
  };
  const results = send.data?.results ?? [];
  const delivered = results.filter((result) => result.ok).length;
  return (
    <>
      <div className="action-row">
        <button type="button" className="primary" onClick={run} disabled={send.isPending}>
          Send a test notification
        </button>
      </div>
      {send.isPending && <p aria-live="polite">Sending…</p>}
      {send.isSuccess && (
        <div role="status" data-testid="test-results">
          <p>
            Delivered to {delivered} of {results.length} webhook{results.length === 1 ? '' : 's'}.
          </p>
          <ul>
            {results.map((result) => (
              <li key={result.webhook}>
                {result.webhook}:{' '}
                {result.ok ? `delivered (HTTP ${result.status})` : `failed (${result.error})`}
              </li>
            ))}
          </ul>
        </div>
      )}
      {send.isError && (
        <p role="alert" className="notice error">
          {send.error.message}
        </p>
      )}
    </>
  );
}

export function NotificationsPage() {
  const canOperate = useCanMutate('operator');
  const canAdmin = useCanMutate('admin');
  const { data, error } = useNotificationsStatus();
  const unmute = useMuteQueue();
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load the notification settings: {error.message}
      </p>
    );
  }
  if (!data) return <p aria-live="polite">Loading…</p>;
  return (
    <>
      <section className="panel" aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Webhooks</h2>
        {data.enabled ? (
          <>
            <ul data-testid="webhooks">
              {data.webhooks.map((webhook) => (
                <li key={webhook.label}>
                  {webhook.label} <span className="muted">({webhook.format})</span>
                </li>
              ))}
            </ul>
            <p>
              Every {seconds(data.intervalMs / 1000)} the console holding the notifier lease sends
              the problems that started or cleared; a queue paused longer than{' '}
              {seconds(data.pausedAfterSeconds)} counts as a problem. A failed delivery is tried{' '}
              {data.maxAttempts} times in all, then recorded in the audit log.
            </p>
            <ul className="muted">
              {data.senders.map((sender) => (
                <li key={sender.prefix}>
                  Prefix <code>{sender.prefix}</code>:{' '}
                  {sender.holder === null
                    ? 'no console sends at the moment'
                    : `sent by ${sender.holder}${sender.self ? ' (this console)' : ''}`}
                </li>
              ))}
            </ul>
          </>
        ) : (
          <p data-testid="notifications-off">
            No webhook is configured: set <code>OXMQ_NOTIFY_WEBHOOKS</code> to send queue problems.
          </p>
        )}
        {canAdmin && data.enabled && <TestButton />}
      </section>
      <section className="panel" aria-labelledby="muted-heading">
        <h2 id="muted-heading">Muted queues</h2>
        {data.muted.length === 0 ? (
          <p>No queue is muted.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Queue</th>
                <th scope="col">Muted by</th>
                <th scope="col">Since</th>
                {canOperate && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {data.muted.map((mute) => (
                <tr key={`${mute.prefix}:${mute.queue}`} data-queue={mute.queue}>
                  <td>
                    <Link href={queueHref({ prefix: mute.prefix, name: mute.queue })}>
                      <span className="prefix">{mute.prefix}:</span>
                      {mute.queue}
                    </Link>
                  </td>
                  <td>{mute.by}</td>
                  <td>{mute.at ? new Date(mute.at).toLocaleString() : '–'}</td>
                  {canOperate && (
                    <td>
                      <button
                        type="button"
                        disabled={unmute.isPending}
                        onClick={() =>
                          unmute.mutate({ prefix: mute.prefix, name: mute.queue, mute: false })
                        }
                      >
                        Unmute
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {unmute.error && (
          <p role="alert" className="notice error">
            {unmute.error.message}
          </p>
        )}
      </section>
    </>
  );
}
