/**
 * How many refused requests of one actor reach the audit stream: the first few of each minute
 * are written in full, the rest only counted, and the count rides on the actor's next written
 * entry (`suppressed`). One console process keeps its own counts; every refusal still goes to
 * the process's stdout (recordAudit in lib/server/oxmq.ts), the append-only record.
 */
import { RecentMap } from './recent-map';

export interface RefusalLimits {
  /** Refusals of one actor written per window. */
  perWindow: number;
  windowMs: number;
  /** Actors remembered at once (the oldest window is forgotten past this). */
  maxActors: number;
}

const REFUSAL_THROTTLE: RefusalLimits = {
  perWindow: 10,
  windowMs: 60_000,
  maxActors: 10_000,
};

interface Window {
  startedAt: number;
  written: number;
  suppressed: number;
}

export class RefusalThrottle {
  private readonly windows: RecentMap<string, Window>;

  constructor(private readonly limits: RefusalLimits = REFUSAL_THROTTLE) {
    // Bounded: made-up actor names cannot grow it without limit.
    this.windows = new RecentMap(limits.maxActors);
  }

  /**
   * Whether this refusal is written; when it is, how many of the actor's refusals were not
   * written before it.
   */
  admit(actor: string, now = Date.now()): { write: false } | { write: true; suppressed: number } {
    let window = this.windows.get(actor);
    if (!window || now - window.startedAt >= this.limits.windowMs) {
      const suppressed = window?.suppressed ?? 0;
      window = { startedAt: now, written: 0, suppressed: 0 };
      this.windows.set(actor, window);
      window.written = 1;
      return { write: true, suppressed };
    }
    if (window.written < this.limits.perWindow) {
      window.written += 1;
      return { write: true, suppressed: 0 };
    }
    window.suppressed += 1;
    return { write: false };
  }
}
