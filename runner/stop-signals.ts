/**
 * Which stop signals (SIGINT, SIGTERM) count as a request of their own. A terminal's Ctrl-C goes
 * to the whole foreground process group: under `npm start` or `npm run worker` npm receives it
 * and forwards it to its child, which received it directly too, so one key press arrives twice
 * a few milliseconds apart. A supervisor that signals a whole control group (systemd) does the
 * same with SIGTERM. Since a second request means "return running jobs to wait now", taking such
 * a copy for one would cut every running job off at the first Ctrl-C. Signals closer together
 * than SAME_STOP_WINDOW_MS are one request; a person's deliberate second Ctrl-C comes later.
 *
 * The runner and the launcher both read their signals through here, and the launcher spaces the
 * signals it sends the runner by STOP_SIGNAL_SPACING_MS so that each of them counts.
 */

export const SAME_STOP_WINDOW_MS = 1_000;

/**
 * What a sender leaves between two requests to a process that filters them as above: the window
 * and some room for the receiver's event loop, which reads the time when it handles a signal.
 */
export const STOP_SIGNAL_SPACING_MS = SAME_STOP_WINDOW_MS + 250;

/**
 * Returns a function to call on every stop signal: it answers the request's number (1 for the
 * first stop, 2 for the "now" one, and so on), or undefined for a copy of the last request.
 */
export function stopRequestCounter(
  windowMs: number = SAME_STOP_WINDOW_MS,
  now: () => number = Date.now,
): () => number | undefined {
  let requests = 0;
  let lastCountedAt = -Infinity;
  return () => {
    const at = now();
    if (at - lastCountedAt < windowMs) return undefined;
    lastCountedAt = at;
    requests += 1;
    return requests;
  };
}
