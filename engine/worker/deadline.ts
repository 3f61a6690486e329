/**
 * closeGracefully's deadline: resolves `reached` when it passes; a later call may only bring it
 * forward (a second stop signal means "now"), never push it back.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class Deadline {
  readonly reached: Promise<void>;
  private at: number;
  private timer?: NodeJS.Timeout;
  private fire!: () => void;
  private passed = false;

  constructor(timeoutMs: number) {
    this.reached = new Promise((resolve) => (this.fire = resolve));
    this.at = Date.now() + timeoutMs;
    this.schedule();
  }

  /** Brings the deadline forward to `timeoutMs` from now, if that is sooner. */
  shorten(timeoutMs: number): void {
    const at = Date.now() + timeoutMs;
    if (this.passed || at >= this.at) return;
    this.at = at;
    this.schedule();
  }

  hasPassed(): boolean {
    return this.passed;
  }

  /** Stops the timer (everything finished in time). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.at === Infinity) return;
    // setTimeout fires at once for delays past 2^31-1 ms: wait in steps of at most that.
    const delay = Math.min(Math.max(0, this.at - Date.now()), MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      if (Date.now() < this.at) {
        this.schedule();
        return;
      }
      this.passed = true;
      this.fire();
    }, delay);
  }
}
