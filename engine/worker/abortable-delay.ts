/**
 * Waits `milliseconds` (forever when undefined) or until `signal` aborts, whichever comes first;
 * never rejects. Worker.delay, kept from bullmq's public API, is this.
 */
export function abortableDelay(milliseconds?: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer =
      milliseconds === undefined ? undefined : setTimeout(done, Math.max(0, milliseconds));
    function done() {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
