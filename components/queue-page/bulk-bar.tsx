'use client';
/** Actions on the ticked jobs, and on all N jobs in the state, offered by role and state. */
import { formatCount } from '@/lib/format-number';
import type { BulkAction, QueueCountState, SelectionResult } from '@/lib/api-types';
import { useCanMutate } from '../session/session-context';
import { BULK_APPLIES, BULK_LABELS, BulkAll } from './bulk-all';
import { useBulkRun } from './use-bulk-run';
import { useQueuePost } from './use-queue-page';

export function BulkBar({
  prefix,
  name,
  state,
  total,
  selected,
  onDone,
}: {
  prefix: string;
  name: string;
  state: QueueCountState;
  total: number;
  selected: string[];
  onDone: () => void;
}) {
  const canOperate = useCanMutate('operator');
  const canAdmin = useCanMutate('admin');
  const selection = useQueuePost<{ action: BulkAction; ids: string[] }, SelectionResult>(
    prefix,
    name,
    'selection',
  );
  const bulk = useBulkRun(prefix, name);
  if (!canOperate) return null;
  const actions = (['retry', 'promote', 'remove'] as const).filter(
    (action) => BULK_APPLIES[action].includes(state) && (action !== 'remove' || canAdmin),
  );
  const busy = selection.isPending || bulk.op?.status === 'running';
  return (
    <div className="bulk-bar" role="group" aria-label="Bulk actions">
      {actions.map((action) => (
        <button
          key={action}
          type="button"
          disabled={busy || selected.length === 0}
          onClick={() => selection.mutate({ action, ids: selected }, { onSuccess: () => onDone() })}
        >
          {BULK_LABELS[action]} selected ({formatCount(selected.length)})
        </button>
      ))}
      <BulkAll name={name} state={state} total={total} disabled={selection.isPending} bulk={bulk} />
      {selection.data && (
        <span className="muted" role="status">
          {selection.data.action}: {formatCount(selection.data.done.length)} done
          {selection.data.skipped.length > 0 &&
            `, ${formatCount(selection.data.skipped.length)} skipped`}
        </span>
      )}
      {selection.error && (
        <p role="alert" className="notice error">
          {selection.error.message}
        </p>
      )}
    </div>
  );
}
