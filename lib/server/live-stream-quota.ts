/**
 * Open streams per user in this console process: live-event streams (each holds a socket and a
 * share of the process's one reader) and streamed scans (each walks a whole state in Redis).
 * Without a cap, one signed-in user could open thousands. A few fit; past the cap a new stream
 * is refused with 429 until one closes.
 */
import { ApiProblem } from './api-error';

const MAX_STREAMS_PER_USER = 8;

export class StreamQuota {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly perUser = MAX_STREAMS_PER_USER,
    private readonly refusal = (cap: number) =>
      `At most ${cap} live views per user; close one (another tab) first`,
  ) {}

  /** Counts a stream for the user; call the returned function once when it closes. */
  acquire(username: string): () => void {
    const count = this.open.get(username) ?? 0;
    if (count >= this.perUser) {
      throw new ApiProblem(429, 'TOO_MANY_STREAMS', this.refusal(this.perUser), {
        retryAfterSeconds: 5,
      });
    }
    this.open.set(username, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(username) ?? 1) - 1;
      if (left > 0) this.open.set(username, left);
      else this.open.delete(username);
    };
  }
}

// One per process, kept across `next dev` reloads.
const holder = globalThis as typeof globalThis & { __oxmqStreamQuota?: StreamQuota };

export function streamQuota(): StreamQuota {
  holder.__oxmqStreamQuota ??= new StreamQuota();
  return holder.__oxmqStreamQuota;
}

/** Searches and exports that stream a scan of a whole state: a couple per user at once. */
const MAX_SCANS_PER_USER = 2;

const scanHolder = globalThis as typeof globalThis & { __oxmqScanQuota?: StreamQuota };

export function scanQuota(): StreamQuota {
  scanHolder.__oxmqScanQuota ??= new StreamQuota(
    MAX_SCANS_PER_USER,
    (cap) => `At most ${cap} searches or exports run at once per user; stop one first`,
  );
  return scanHolder.__oxmqScanQuota;
}
