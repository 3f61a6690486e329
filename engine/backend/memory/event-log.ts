/**
 * One queue's event log in memory: entries in order, each with a stream-style id `<ms>-<seq>`
 * (so ids order as a Redis stream's do, and QueueEvents resumes after one as it would there),
 * capped at a length, with readers that wait for the next entry.
 */
import type { EventLogEntry } from '../event-log';

/** bullmq's default cap of a queue's events (meta `opts.maxLenEvents`). */
export const DEFAULT_MAX_EVENTS = 10_000;

function parseId(id: string): [number, number] {
  const [ms, seq] = id.split('-');
  return [Number(ms) || 0, Number(seq) || 0];
}

/** True when id `a` comes after id `b`. */
function isAfter(a: string, b: string): boolean {
  const [msA, seqA] = parseId(a);
  const [msB, seqB] = parseId(b);
  return msA > msB || (msA === msB && seqA > seqB);
}

export class MemoryEventLog {
  private entries: EventLogEntry[] = [];
  private lastMs = 0;
  private lastSeq = 0;
  private readonly waiting = new Set<() => void>();

  /** Appends an entry (`event`, name, value...) and wakes the readers; returns its id. */
  add(fields: string[], maxLength = DEFAULT_MAX_EVENTS): string {
    const now = Date.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.lastSeq = 0;
    } else {
      this.lastSeq += 1;
    }
    const id = `${this.lastMs}-${this.lastSeq}`;
    this.entries.push([id, fields]);
    this.trim(maxLength);
    for (const wake of [...this.waiting]) wake();
    return id;
  }

  /** Keeps the newest `maxLength` entries; returns how many went. */
  trim(maxLength: number): number {
    const extra = this.entries.length - maxLength;
    if (extra <= 0) return 0;
    this.entries = this.entries.slice(extra);
    return extra;
  }

  get length(): number {
    return this.entries.length;
  }

  lastId(): string {
    return this.entries.at(-1)?.[0] ?? '0-0';
  }

  /** The entries after `afterId`, oldest first. */
  after(afterId: string): EventLogEntry[] {
    const at = this.entries.findIndex(([id]) => isAfter(id, afterId));
    return at < 0 ? [] : this.entries.slice(at).map(([id, fields]) => [id, [...fields]]);
  }

  /**
   * Entries after `afterId`, waiting up to `blockMs` (0: without limit) for the first; `signal`
   * ends the wait early.
   */
  async read(afterId: string, blockMs: number, signal?: AbortSignal): Promise<EventLogEntry[]> {
    const ready = this.after(afterId);
    if (ready.length > 0 || signal?.aborted) return ready;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.waiting.delete(done);
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = blockMs > 0 ? setTimeout(done, blockMs) : undefined;
      signal?.addEventListener('abort', done, { once: true });
      this.waiting.add(done);
    });
    return this.after(afterId);
  }

  clear(): void {
    this.entries = [];
  }
}
