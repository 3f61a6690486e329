/**
 * Open live-event streams per user in this console process. Each stream holds a socket and a
 * share of the process's one reader; without a cap, one signed-in user could open thousands.
 * A few tabs fit; past the cap a new stream is refused with 429 until one closes.
 */
import { ApiProblem } from './api-error';

export const MAX_STREAMS_PER_USER = 8;

export class StreamQuota {
  private readonly open = new Map<string, number>();

  constructor(private readonly perUser = MAX_STREAMS_PER_USER) {}

  /** Counts a stream for the user; call the returned function once when it closes. */
  acquire(username: string): () => void {
    const count = this.open.get(username) ?? 0;
    if (count >= this.perUser) {
      throw new ApiProblem(
        429,
        'TOO_MANY_STREAMS',
        `At most ${this.perUser} live views per user; close one (another tab) first`,
        { retryAfterSeconds: 5 },
      );
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
