'use client';
/** Actions on the ticked jobs, and on all N jobs in the state, offered by role and state. */
import type { BulkAction, QueueCountState, SelectionResult } from '@/lib/api-types';
import { useCanMutate } from '../session/session-context';
import { BulkProgress } from './bulk-progress';
import { useBulkRun } from './use-bulk-run';
import { useQueuePost } from './use-queue-page';

const APPLIES: Record<BulkAction, readonly QueueCountState[]> = {
  retry: ['failed', 'completed'],
  promote: ['delayed'],
  remove: ['waiting', 'delayed', 'prioritized', 'completed', 'failed', 'waiting-children'],
};
const LABELS: Record<BulkAction, string> = { retry: 'Retry', promote: 'Promote', remove: 'Remove' };

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
    (action) => APPLIES[action].includes(state) && (action !== 'remove' || canAdmin),
  );
  const busy = selection.isPending || bulk.op?.status === 'running';
  return (
    <div className="bulk-bar" role="group" aria-label="Bulk actions">
      {actions.map((action) => (
        <span key={action} className="bulk-pair">
          <button
            type="button"
            disabled={busy || selected.length === 0}
            onClick={() =>
              selection.mutate({ action, ids: selected }, { onSuccess: () => onDone() })
            }
          >
            {LABELS[action]} selected ({selected.length})
          </button>
          <button
            type="button"
            className={action === 'remove' ? 'danger' : undefined}
            disabled={busy || total === 0}
            onClick={() => {
              if (action !== 'remove' || window.confirm(`Remove all ${total} ${state} jobs?`)) {
                void bulk.start(action, state);
              }
            }}
          >
            {LABELS[action]} all {total} {state}
          </button>
        </span>
      ))}
      {selection.data && (
        <span className="muted" role="status">
          {selection.data.action}: {selection.data.done.length} done
          {selection.data.skipped.length > 0 && `, ${selection.data.skipped.length} skipped`}
        </span>
      )}
      {(selection.error ?? bulk.error) && (
        <p role="alert" className="notice error">
          {selection.error?.message ?? bulk.error}
        </p>
      )}
      {bulk.op && (
        <BulkProgress op={bulk.op} onCancel={() => void bulk.cancel()} onClose={bulk.clear} />
      )}
    </div>
  );
}
