/**
 * Wake-up signals for idle workers, in memory: named boxes of (member, score) pairs that a
 * waiter pops the lowest of, waiting up to a timeout for one to arrive. A queue's marker box
 * says "jobs are ready" (member `0`, score 0) or "the next delayed job is due at <score>"
 * (member `1`); a worker's wake box carries requests for it (a cancel). The same contract as
 * the Redis marker (lua/includes/markers.lua), without the wire.
 */
type Box = Map<string, number>;

export interface Popped {
  box: string;
  member: string;
  score: number;
}

export class WakeSignals {
  private readonly boxes = new Map<string, Box>();
  private readonly waiting = new Set<() => void>();

  /** Puts `member` in `box` with `score` (moving it when there) and wakes the waiters. */
  signal(box: string, member: string, score: number): void {
    let entries = this.boxes.get(box);
    if (!entries) this.boxes.set(box, (entries = new Map()));
    entries.set(member, score);
    for (const wake of [...this.waiting]) wake();
  }

  score(box: string, member: string): number | undefined {
    return this.boxes.get(box)?.get(member);
  }

  clear(box: string): void {
    this.boxes.delete(box);
  }

  /** Pops the lowest-scored member of the first of `boxes` holding one, at once. */
  pop(boxes: readonly string[]): Popped | undefined {
    let best: Popped | undefined;
    for (const box of boxes) {
      for (const [member, score] of this.boxes.get(box) ?? []) {
        if (!best || score < best.score) best = { box, member, score };
      }
    }
    if (best) {
      const entries = this.boxes.get(best.box)!;
      entries.delete(best.member);
      if (entries.size === 0) this.boxes.delete(best.box);
    }
    return best;
  }

  /**
   * Pops as `pop` does, waiting up to `timeoutMs` for a member; ends early (undefined) when
   * `signal` aborts.
   */
  async wait(
    boxes: readonly string[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Popped | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const popped = this.pop(boxes);
      if (popped) return popped;
      const left = deadline - Date.now();
      if (left <= 0 || signal?.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiting.delete(done);
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, left);
        signal?.addEventListener('abort', done, { once: true });
        this.waiting.add(done);
      });
    }
  }
}
