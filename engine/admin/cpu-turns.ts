/**
 * Turns of the event loop for the admin layer's CPU-heavy loops: a search or a walk parses,
 * redacts and serializes every job it examines (job-search.ts), about 0.1 ms for a 1.6 KB job,
 * so one call over 5,000 jobs is most of a second of CPU, and twenty at once held the console's
 * only thread for seconds: every other request, and the timers of their Redis commands, waited.
 *
 * Such a loop works in slices of at most `sliceMs` and starts each slice only when granted a
 * turn. Turns are granted one per turn of the event loop (from a setImmediate callback: one
 * scheduled while the loop is in its check phase runs in the next turn), first come first
 * served, to all loops of the process together. So however many loops run, one turn of the
 * event loop holds at most one slice of their work (plus the one item that overran it), and
 * between slices Node reads sockets and runs everyone else's callbacks. On an idle process the
 * turns follow each other at once, so a lone loop loses little.
 */

/** A slice of a few milliseconds keeps the answer time of other requests in the tens of ms. */
export const CPU_SLICE_MS = 4;

export class CpuTurns {
  private readonly waiting: Array<() => void> = [];
  private granting = false;

  constructor(readonly sliceMs = CPU_SLICE_MS) {}

  /** Resolves at the caller's turn; at most one caller's turn per turn of the event loop. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.grantSoon();
    });
  }

  /** Callers waiting for a turn (for tests and diagnostics). */
  get queued(): number {
    return this.waiting.length;
  }

  /** A slice timer for one loop: start it with begin(), then call spent() after each item. */
  slice(): CpuSlice {
    return new CpuSlice(this);
  }

  private grantSoon(): void {
    if (this.granting) return;
    this.granting = true;
    setImmediate(() => {
      this.granting = false;
      const resolve = this.waiting.shift();
      if (this.waiting.length > 0) this.grantSoon();
      resolve?.();
    });
  }
}

/**
 * One loop's slices: `await slice.begin()` before the first item (and after any other await,
 * such as a Redis read: the loop's slice ended there), then after each item
 * `if (slice.spent()) await slice.begin()`.
 */
export class CpuSlice {
  private startedAt = 0;

  constructor(private readonly turns: CpuTurns) {}

  async begin(): Promise<void> {
    await this.turns.next();
    this.startedAt = performance.now();
  }

  /** True once this slice has used its time: the loop must wait for its next turn. */
  spent(): boolean {
    return performance.now() - this.startedAt >= this.turns.sliceMs;
  }
}

/** The turns every admin loop of this process shares unless it is given its own. */
export const SHARED_CPU_TURNS = new CpuTurns();
