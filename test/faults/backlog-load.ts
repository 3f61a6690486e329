/**
 * Fills a queue with the large backlog of backlog.test.ts: `total` jobs added with addBulk in
 * small chunks, so that no single script call runs long. One job in ten is delayed (half of
 * them due at once, half in half an hour), one in a hundred prioritized, the rest waiting.
 */
import type { JobsOptions, Queue } from 'oxmq';

/** Jobs per addBulk call: one addJobBatch script call stays well under 10 ms at this size. */
export const LOAD_CHUNK = 100;
/** How far out the delayed jobs that are not due during the run wait. */
export const FAR_DELAY_MS = 30 * 60_000;

export type BacklogKind = 'wait' | 'due' | 'far' | 'prioritized';

/** The kind of the i-th job added (0-based). */
export function kindOf(i: number): BacklogKind {
  if (i % 10 === 0) return i % 20 === 0 ? 'due' : 'far';
  if (i % 100 === 1) return 'prioritized';
  return 'wait';
}

export interface LoadedBacklog {
  ms: number;
  /** Ids per kind, in the order they were added. */
  ids: Record<BacklogKind, string[]>;
}

/**
 * Adds the backlog's jobs `from` to `to` (0-based, `to` excluded), the i-th of the kind
 * kindOf(i), so a later call goes on with the same mix. The `due` jobs are delayed by 1 ms:
 * nothing promotes them while no worker runs, so the first worker finds all of them (a
 * twentieth of the backlog) due at once.
 */
export async function loadBacklog(queue: Queue, from: number, to: number): Promise<LoadedBacklog> {
  const ids: LoadedBacklog['ids'] = { wait: [], due: [], far: [], prioritized: [] };
  const started = Date.now();
  for (let first = from; first < to; first += LOAD_CHUNK) {
    const count = Math.min(LOAD_CHUNK, to - first);
    const jobs = Array.from({ length: count }, (_, k) => {
      const i = first + k;
      const kind = kindOf(i);
      const opts: JobsOptions =
        kind === 'due'
          ? { delay: 1 }
          : kind === 'far'
            ? { delay: FAR_DELAY_MS }
            : kind === 'prioritized'
              ? { priority: 1 + (i % 7) }
              : {};
      return { name: `backlog-${kind}`, data: { i, tag: `t${i % 1000}` }, opts };
    });
    const added = await queue.addBulk(jobs);
    added.forEach((job, k) => ids[kindOf(first + k)].push(job.id!));
  }
  return { ms: Date.now() - started, ids };
}
