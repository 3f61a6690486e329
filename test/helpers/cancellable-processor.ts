import type { Job } from 'oxmq';

/**
 * A processor that never finishes on its own: it records each job it starts in `started` and
 * fails with `cancelled: <reason>` when the job's AbortSignal fires.
 */
export function cancellableProcessor(started: Set<string>) {
  return (job: Job, _token?: string, signal?: AbortSignal) =>
    new Promise<never>((_resolve, reject) => {
      started.add(job.id);
      signal?.addEventListener('abort', () =>
        reject(new Error(`cancelled: ${String(signal.reason)}`)),
      );
    });
}
