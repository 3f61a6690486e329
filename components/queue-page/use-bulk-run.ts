'use client';
/**
 * Drives an "all N matching" bulk operation: create it, then POST one chunk at a time until the
 * server says it is done or cancelled (engine/admin/redis/bulk.ts explains why the client drives
 * the chunks). Closing the page stops the operation where it is.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import type { BulkAction, BulkOperationResponse, QueueCountState } from '@/lib/api-types';
import { postJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { queuePath } from '../queues/use-queues';

/** The search filter an "all matching" operation carries (the server's JobFilter). */
export type BulkFilter = NonNullable<BulkOperationResponse['filter']>;

export function useBulkRun(prefix: string, name: string) {
  const client = useQueryClient();
  const [op, setOp] = useState<BulkOperationResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const running = useRef(false);
  const base = `${queuePath(prefix, name)}/bulk`;

  const start = useCallback(
    async (
      action: BulkAction,
      state: QueueCountState,
      extra: { filter?: BulkFilter; confirm?: string } = {},
    ) => {
      if (running.current) return;
      running.current = true;
      setError(null);
      try {
        let current = await postJson<BulkOperationResponse>(base, { action, state, ...extra });
        setOp(current);
        while (current.status === 'running') {
          current = await postJson<BulkOperationResponse>(`${base}/${current.id}/step`, {});
          setOp(current);
          void client.invalidateQueries({ queryKey: queryKeys.queues.all });
        }
      } catch (caught) {
        setError(caught instanceof Error ? caught.message : String(caught));
      } finally {
        running.current = false;
        void client.invalidateQueries({ queryKey: queryKeys.queues.all });
      }
    },
    [base, client],
  );

  const cancel = useCallback(async () => {
    if (!op) return;
    try {
      // The loop in start() sees status "cancelled" on its next step and stops.
      setOp(await postJson<BulkOperationResponse>(`${base}/${op.id}/cancel`, {}));
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  }, [base, op]);

  return { op, error, start, cancel, clear: () => setOp(null) };
}
