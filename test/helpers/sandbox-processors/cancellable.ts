/**
 * Fixture: reports progress once running, then waits for its signal to abort (worker.cancelJob
 * in the parent) and fails with the reason and whether it got its lock token.
 */
export default async function cancellable(
  job: { updateProgress(progress: object): Promise<void> },
  token?: string,
  signal?: AbortSignal,
) {
  await job.updateProgress({ running: true });
  const keepAlive = setInterval(() => undefined, 1_000);
  try {
    await new Promise<void>((_resolve, reject) => {
      const fail = () =>
        reject(
          new Error(
            `cancelled in child: ${String(signal!.reason)}, token ${token ? 'given' : 'missing'}`,
          ),
        );
      // The cancel may arrive before this line runs (while updateProgress was answered).
      if (signal!.aborted) fail();
      else signal!.addEventListener('abort', fail);
    });
  } finally {
    clearInterval(keepAlive);
  }
}
