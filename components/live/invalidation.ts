/**
 * Which react-query keys a batch of queue events makes stale. Kept apart from the hook so the
 * mapping is one readable table: any event changes the queue list's counts, the queue's page
 * and the flows on screen; an event naming a job changes that job's page; finishing events
 * change metrics. Searches (a costly scan) are never refreshed by events. Only queries that are
 * mounted refetch; the rest are just marked stale.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { LiveEventBatch } from '@/lib/api-types';
import { queryKeys } from '../query-keys';

const FINISHING_EVENTS = new Set(['completed', 'failed']);

export function invalidateForBatches(client: QueryClient, batches: LiveEventBatch[]): void {
  if (batches.length === 0) return;
  const stale: (readonly unknown[])[] = [['queues', 'list'], queryKeys.flow.all];
  const jobs = new Set<string>();
  let finished = false;
  for (const batch of batches) {
    stale.push(queryKeys.queues.detail(batch.prefix, batch.name));
    stale.push(queryKeys.queuePage.all(batch.prefix, batch.name));
    for (const event of batch.events) {
      if (FINISHING_EVENTS.has(event.event)) finished = true;
      const key = event.jobId && `${batch.prefix}\u0000${batch.name}\u0000${event.jobId}`;
      if (key && !jobs.has(key)) {
        jobs.add(key);
        stale.push(queryKeys.job.all(batch.prefix, batch.name, event.jobId!));
      }
    }
  }
  if (finished) stale.push(queryKeys.metrics.all);
  for (const queryKey of stale) void client.invalidateQueries({ queryKey });
}

/** After a gap (reconnect, tab shown again) events may have been missed: refresh everything. */
export function invalidateAfterGap(client: QueryClient): void {
  void client.invalidateQueries({ queryKey: queryKeys.queues.all });
  void client.invalidateQueries({ queryKey: queryKeys.workers.all });
  void client.invalidateQueries({ queryKey: queryKeys.metrics.all });
}
