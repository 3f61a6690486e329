/**
 * Fixture: a sandboxed processor that notices its cancellation but does not stop. It reports
 * `{ running: true }` once it runs and `{ sawCancel: true }` when its signal aborts, then runs on
 * until its child is killed.
 */
export default async function ignoresCancel(
  job: { updateProgress(progress: object): Promise<void> },
  _token?: string,
  signal?: AbortSignal,
) {
  signal?.addEventListener('abort', () => void job.updateProgress({ sawCancel: true }));
  await job.updateProgress({ running: true });
  // Forever: a timer keeps the event loop busy, as a processor stuck on real work would.
  await new Promise(() => setInterval(() => undefined, 1_000));
}
