'use client';
import { formatCount } from '@/lib/format-number';
import type { BulkOperationResponse } from '@/lib/api-types';

export function BulkProgress({
  op,
  onCancel,
  onClose,
}: {
  op: BulkOperationResponse;
  onCancel: () => void;
  onClose: () => void;
}) {
  // Progress is jobs examined; for a filtered run that includes the non-matching ones.
  const handled = op.examined;
  const percent = op.total === 0 ? 100 : Math.min(100, Math.round((handled / op.total) * 100));
  return (
    <div className="bulk-progress" data-status={op.status} data-testid="bulk-progress">
      <label htmlFor={`bulk-${op.id}`}>
        {op.filter?.mode === 'error'
          ? `${op.action} error group in ${op.state}`
          : `${op.action} all ${op.filter ? 'matching ' : ''}${op.state}`}
        : {formatCount(handled)} of {formatCount(op.total)} ({percent}%)
        {op.filter && ` · ${formatCount(op.done)} matched and acted on`}
        {op.skipped > 0 && ` · ${formatCount(op.skipped)} skipped`}
        {op.status !== 'running' && ` · ${op.status}`}
      </label>
      <progress id={`bulk-${op.id}`} max={100} value={percent} aria-valuetext={`${percent}%`} />
      {op.status === 'running' ? (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      ) : (
        <button type="button" onClick={onClose}>
          Dismiss
        </button>
      )}
    </div>
  );
}
