/**
 * Fixture: a one-parameter processor that watches `job.signal` (not a third argument). Reports
 * progress once running, then fails with the abort reason when the job is cancelled.
 */
export default async function watchesJobSignal(job: {
  signal?: AbortSignal;
  updateProgress(progress: object): Promise<void>;
}) {
  const signal = job.signal;
  if (!signal) throw new Error('job.signal missing in child');
  await job.updateProgress({ running: true });
  const keepAlive = setInterval(() => undefined, 1_000);
  try {
    await new Promise<void>((_resolve, reject) => {
      const fail = () => reject(new Error(`job.signal aborted in child: ${String(signal.reason)}`));
      // The cancel may arrive before this line runs (while updateProgress was answered).
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail);
    });
  } finally {
    clearInterval(keepAlive);
  }
}
