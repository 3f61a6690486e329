/**
 * Jobs finished in the last closed minute, from bullmq's metrics layout (see
 * engine/admin/metrics.ts and lua/includes/collectMetrics.lua): `metrics:<type>` holds the
 * running `count` and the count and time of the last push (`prevCount`, `prevTS`);
 * `metrics:<type>:data` one count per closed minute, newest first.
 *
 * A push happens when a job finishes in a later minute than prevTS's: it attributes every job
 * since the previous push to the minute before, so after it the head of the list counts the
 * minute before prevTS's minute, and `count - prevCount` counts jobs of prevTS's own minute.
 * Without a push nothing finished in a later minute. So, seen from minute N (the one holding
 * `now`), with M the minute of prevTS:
 *
 * - N = M: the last closed minute is M-1, the head of the list;
 * - N = M+1: it is M itself, `count - prevCount`;
 * - N > M+1: nothing finished in it, 0.
 *
 * A writer whose clock runs ahead of ours can make M > N; its own last closed minute (the head)
 * is then the best answer.
 */

const MINUTE_MS = 60_000;

export interface MetricsHashReading {
  count: number;
  prevTS: number;
  prevCount: number;
  /** The head of the data list; null when the list is empty. */
  head: number | null;
}

export function lastClosedMinuteCount(reading: MetricsHashReading, now: number): number {
  if (!(reading.prevTS > 0)) return 0; // never recorded: no worker with `metrics` wrote it
  const minute = Math.floor(now / MINUTE_MS);
  const pushed = Math.floor(reading.prevTS / MINUTE_MS);
  if (minute <= pushed) return reading.head ?? 0;
  if (minute === pushed + 1) return Math.max(0, reading.count - reading.prevCount);
  return 0;
}
