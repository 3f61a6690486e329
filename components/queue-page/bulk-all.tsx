'use client';
/**
 * "All N" bulk actions: over every job in a state, or (with a search filter) over every job
 * in it that matches, run chunk by chunk with a progress bar and Cancel. Removing is
 * destructive, so it opens a typed confirmation; the server checks the typed name too.
 */
import { formatCount } from '@/lib/format-number';
import { useState } from 'react';
import { BULK_ACTION_STATES } from 'oxmq/admin';
import type { BulkAction, QueueCountState } from '@/lib/api-types';
import { useCanMutate } from '../session/session-context';
import { BulkProgress } from './bulk-progress';
import { TypedConfirm } from './typed-confirm';
import type { BulkFilter, useBulkRun } from './use-bulk-run';

/** Which states each action applies to: the server's own rule. */
export const BULK_APPLIES = BULK_ACTION_STATES;
export const BULK_LABELS: Record<BulkAction, string> = {
  retry: 'Retry',
  promote: 'Promote',
  remove: 'Remove',
};

export function BulkAll({
  name,
  state,
  total,
  filter,
  disabled,
  bulk,
}: {
  name: string;
  state: QueueCountState;
  /** Jobs in the state (whole-state runs label their buttons with it). */
  total: number;
  filter?: BulkFilter;
  disabled: boolean;
  bulk: ReturnType<typeof useBulkRun>;
}) {
  const canOperate = useCanMutate('operator');
  const canAdmin = useCanMutate('admin');
  const [confirming, setConfirming] = useState(false);
  if (!canOperate) return null;
  const actions = (['retry', 'promote', 'remove'] as const).filter(
    (action) => BULK_APPLIES[action].includes(state) && (action !== 'remove' || canAdmin),
  );
  const busy = disabled || bulk.op?.status === 'running';
  const label = (action: BulkAction) =>
    filter
      ? `${BULK_LABELS[action]} all matching`
      : `${BULK_LABELS[action]} all ${formatCount(total)} ${state}`;
  return (
    <>
      {actions.map((action) => (
        <button
          key={action}
          type="button"
          className={action === 'remove' ? 'danger' : undefined}
          disabled={busy || total === 0}
          aria-expanded={action === 'remove' ? confirming : undefined}
          onClick={() => {
            if (action === 'remove') setConfirming(!confirming);
            else void bulk.start(action, state, { filter });
          }}
        >
          {label(action)}
          {action === 'remove' && '…'}
        </button>
      ))}
      {confirming && (
        <TypedConfirm
          name={name}
          label={
            filter ? `Remove matching ${state} jobs` : `Remove ${formatCount(total)} ${state} jobs`
          }
          pending={busy}
          onCancel={() => setConfirming(false)}
          onConfirm={(confirm) => {
            setConfirming(false);
            void bulk.start('remove', state, { filter, confirm });
          }}
        />
      )}
      {bulk.error && (
        <p role="alert" className="notice error">
          {bulk.error}
        </p>
      )}
      {bulk.op && (
        <BulkProgress op={bulk.op} onCancel={() => void bulk.cancel()} onClose={bulk.clear} />
      )}
    </>
  );
}
