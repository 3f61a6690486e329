/**
 * A process-wide bound on the console's heavy scans (a search or an error-group call: up to
 * 5,000 jobs parsed and redacted each). Their CPU work already runs in short slices that leave
 * the event loop to everyone else (engine/admin/cpu-turns.ts); this gate bounds how many run at
 * once, so each one finishes in about its own time instead of all crawling together, their job
 * fields held in memory stay bounded, and a flood is answered at once instead of hanging.
 *
 * A few scans run at once, and a user holds at most `perUser` of them, so one user cannot take
 * every slot. A few more wait their turn (at most `perUserWaiting` per user, for `maxWaitMs`),
 * first come first served among users below their share; the rest are refused at once with 429
 * SEARCH_BUSY and Retry-After. A waiter whose request is aborted leaves the line.
 */
import { ApiProblem } from './api-error';

export interface SearchGateLimits {
  /** Scans running at once in the process. */
  running: number;
  /** Scans one user runs at once. */
  perUser: number;
  /** Scans waiting for a slot in the process... */
  waiting: number;
  /** ...and of one user. */
  perUserWaiting: number;
  /** How long a scan waits for a slot before it is refused. */
  maxWaitMs: number;
}

const SEARCH_GATE_LIMITS: SearchGateLimits = {
  running: 4,
  perUser: 2,
  waiting: 8,
  perUserWaiting: 2,
  maxWaitMs: 10_000,
};

/** What a refused scan is told: scans take about a second, so come back in a couple. */
const RETRY_AFTER_SECONDS = 2;

interface Waiter {
  username: string;
  start: () => void;
}

export class SearchGate {
  private readonly runningBy = new Map<string, number>();
  private readonly line: Waiter[] = [];
  private runningTotal = 0;

  constructor(private readonly limits: SearchGateLimits = SEARCH_GATE_LIMITS) {}

  /** Runs `scan` once the user has a slot; throws 429 SEARCH_BUSY when none comes. */
  async run<T>(username: string, scan: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    // A waiter's slot is taken for it when it is handed over, so nobody overtakes it meanwhile.
    if (this.canStart(username)) this.take(username);
    else await this.wait(username, signal);
    try {
      return await scan();
    } finally {
      this.give(username);
    }
  }

  /** Scans running now (for tests and diagnostics). */
  get running(): number {
    return this.runningTotal;
  }

  /** Scans waiting for a slot now. */
  get waiting(): number {
    return this.line.length;
  }

  private canStart(username: string): boolean {
    return (
      this.runningTotal < this.limits.running &&
      (this.runningBy.get(username) ?? 0) < this.limits.perUser
    );
  }

  private wait(username: string, signal?: AbortSignal): Promise<void> {
    const own = this.line.filter((waiter) => waiter.username === username).length;
    if (this.line.length >= this.limits.waiting || own >= this.limits.perUserWaiting) {
      return Promise.reject(busy());
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (error: unknown) => {
        const at = this.line.indexOf(waiter);
        if (at === -1) return;
        this.line.splice(at, 1);
        settle();
        reject(error);
      };
      // Nobody reads the answer of an aborted request: it only has to leave the line.
      const onAbort = () => leave(busy());
      const timer = setTimeout(() => leave(busy()), this.limits.maxWaitMs);
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        username,
        start: () => {
          settle();
          resolve();
        },
      };
      this.line.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }

  private take(username: string): void {
    this.runningTotal += 1;
    this.runningBy.set(username, (this.runningBy.get(username) ?? 0) + 1);
  }

  private give(username: string): void {
    this.runningTotal -= 1;
    const left = (this.runningBy.get(username) ?? 1) - 1;
    if (left > 0) this.runningBy.set(username, left);
    else this.runningBy.delete(username);
    this.startNext();
  }

  /** Starts the first waiter below their share, if a slot is free. */
  private startNext(): void {
    const at = this.line.findIndex((waiter) => this.canStart(waiter.username));
    if (at === -1) return;
    const [waiter] = this.line.splice(at, 1);
    this.take(waiter!.username);
    waiter!.start();
  }
}

function busy(): ApiProblem {
  return new ApiProblem(429, 'SEARCH_BUSY', 'Too many searches are running; try again shortly', {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

// One per process, kept across `next dev` reloads.
const holder = globalThis as typeof globalThis & { __oxmqSearchGate?: SearchGate };

export function searchGate(): SearchGate {
  holder.__oxmqSearchGate ??= new SearchGate();
  return holder.__oxmqSearchGate;
}
