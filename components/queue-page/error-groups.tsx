'use client';
/**
 * The failed tab grouped by error: one row per signature (the failure reason with its varying
 * parts masked), its count, first and last failure, and a sample job. Operators retry a whole
 * group, admins remove one (typed confirmation), as a bulk operation filtered by the signature,
 * with the usual progress; the groups are scanned again when it ends.
 */
import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import type { BulkAction, ErrorGroup } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { useCanMutate } from '../session/session-context';
import { BulkProgress } from './bulk-progress';
import { formatDuration } from './format';
import { jobHref } from './job-table';
import { TypedConfirm } from './typed-confirm';
import { useBulkRun } from './use-bulk-run';
import { useErrorGroups, type ErrorGroupsView } from './use-error-groups';

function Seen({ at, now }: { at: number; now: number }) {
  if (at <= 0) return <>–</>;
  const iso = new Date(at).toISOString();
  return (
    <time dateTime={iso} title={iso}>
      {formatDuration(Math.max(0, now - at))} ago
    </time>
  );
}

function ScanStatus({
  view,
  onStop,
  onRescan,
}: {
  view: ErrorGroupsView;
  onStop: () => void;
  onRescan: () => void;
}) {
  const counted = `${formatCount(view.grouped)} of ${formatCount(view.total)} failed jobs`;
  const text =
    view.status === 'scanning'
      ? view.total === 0
        ? 'Grouping failed jobs…'
        : `Grouped ${counted}… scanning`
      : view.status === 'done'
        ? `Grouped ${counted}`
        : view.status === 'stopped'
          ? `Grouped ${counted} (stopped)`
          : `Grouped ${counted}; the scan failed: ${view.error ?? 'unknown error'}`;
  return (
    <div className="action-row">
      <p role="status" className={view.status === 'error' ? 'notice error' : 'muted'}>
        {text}
      </p>
      {view.status === 'scanning' ? (
        <button type="button" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="button" onClick={onRescan}>
          Scan again
        </button>
      )}
    </div>
  );
}

export function ErrorGroups({ prefix, name }: { prefix: string; name: string }) {
  const canOperate = useCanMutate('operator');
  const canAdmin = useCanMutate('admin');
  const { view, rescan, stop } = useErrorGroups(prefix, name);
  const bulk = useBulkRun(prefix, name);
  const [confirming, setConfirming] = useState<string | null>(null);
  const now = Date.now();
  const running = bulk.op?.status === 'running';

  // When a group's run ends, its jobs have moved: the groups are scanned again.
  const wasRunning = useRef(false);
  useEffect(() => {
    if (wasRunning.current && !running) void rescan();
    wasRunning.current = running;
  }, [running, rescan]);

  const act = (action: BulkAction, group: ErrorGroup, confirm?: string) =>
    void bulk.start(action, 'failed', {
      filter: { mode: 'error', query: group.signature },
      ...(confirm === undefined ? {} : { confirm }),
    });

  return (
    <div data-testid="error-groups">
      <ScanStatus view={view} onStop={stop} onRescan={() => void rescan()} />
      {bulk.error && (
        <p role="alert" className="notice error">
          {bulk.error}
        </p>
      )}
      {bulk.op && (
        <BulkProgress op={bulk.op} onCancel={() => void bulk.cancel()} onClose={bulk.clear} />
      )}
      {confirming !== null && (
        <TypedConfirm
          name={name}
          label={`Remove the failed jobs of “${confirming}”`}
          pending={running}
          onCancel={() => setConfirming(null)}
          onConfirm={(confirm) => {
            const group = view.groups.find((g) => g.signature === confirming);
            setConfirming(null);
            if (group) act('remove', group, confirm);
          }}
        />
      )}
      {view.groups.length === 0 && view.other === 0 ? (
        view.status !== 'scanning' && <p>No failed jobs.</p>
      ) : (
        <table className="job-table error-groups">
          <caption className="visually-hidden">Failed jobs grouped by error</caption>
          <thead>
            <tr>
              <th scope="col">Error</th>
              <th scope="col" className="num">
                Count
              </th>
              <th scope="col">First seen</th>
              <th scope="col">Last seen</th>
              <th scope="col">Sample job</th>
              {canOperate && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {view.groups.map((group) => (
              <tr key={group.signature} data-testid="error-group">
                <td>
                  <code className="error-signature" title={group.sample.reason}>
                    {group.signature}
                  </code>
                </td>
                <td className="num" data-testid="error-group-count">
                  {formatCount(group.count)}
                </td>
                <td>
                  <Seen at={group.firstSeen} now={now} />
                </td>
                <td>
                  <Seen at={group.lastSeen} now={now} />
                </td>
                <td>
                  <Link href={jobHref(prefix, name, group.sample.id)}>{group.sample.id}</Link>
                </td>
                {canOperate && (
                  <td>
                    <div className="action-row">
                      <button type="button" disabled={running} onClick={() => act('retry', group)}>
                        Retry group
                      </button>
                      {canAdmin && (
                        <button
                          type="button"
                          className="danger"
                          disabled={running}
                          aria-expanded={confirming === group.signature}
                          onClick={() =>
                            setConfirming(confirming === group.signature ? null : group.signature)
                          }
                        >
                          Remove group…
                        </button>
                      )}
                    </div>
                  </td>
                )}
              </tr>
            ))}
            {view.other > 0 && (
              <tr data-testid="error-group-other">
                <td className="muted">
                  Other errors (past {formatCount(view.groups.length)} distinct groups)
                </td>
                <td className="num">{formatCount(view.other)}</td>
                <td colSpan={canOperate ? 4 : 3} />
              </tr>
            )}
          </tbody>
        </table>
      )}
    </div>
  );
}
