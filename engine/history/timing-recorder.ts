/**
 * What a worker adds to its queue's timing history (docs/metrics.md, "Timing history"): per
 * minute, the wait time of first attempts (due → start), the run time of attempts (start →
 * outcome) in fixed buckets, and the outcomes, for the whole queue and per job name. Counted in
 * memory as jobs start and end, and written to the storage's TimingHistoryStore every
 * `flushIntervalMs` in one call (and on close), so a job costs no storage call of its own. A worker killed without closing loses at
 * most one interval of counts.
 *
 * Names are bounded: each minute the busiest NAMES_PER_MINUTE names are written under their own
 * name and the rest under OTHER_NAMES, so a queue with random job names cannot grow the history
 * without limit.
 */
import type { HistoryEntry, TimingHistoryStore } from '../backend/timing-history';
import { bucketOf } from './buckets';
import { slotStart, SERIES, type HistoryRetention } from './history-keys';

export const NAMES_PER_MINUTE = 20;
/** The name the history gives the jobs of the names beyond the busiest. */
export const OTHER_NAMES = '(other names)';
/** Longest name kept as it is; longer ones are cut (a name is a label, not data). */
const NAME_CHARS = 200;
/** Names one minute counts separately in memory before folding the rest into OTHER_NAMES. */
const NAMES_IN_MEMORY = 1_000;
/** Minutes kept in memory while storage cannot take them (the oldest are dropped beyond). */
const MINUTES_IN_MEMORY = 60;

export type AttemptOutcome = 'completed' | 'failed' | 'retried';

/** One name's counts in one minute (or the whole queue's). */
class Tally {
  events = 0;
  readonly counts = new Map<string, number>();

  add(series: string, value = 1): void {
    this.counts.set(series, (this.counts.get(series) ?? 0) + value);
  }

  merge(other: Tally): void {
    this.events += other.events;
    for (const [series, value] of other.counts) this.add(series, value);
  }
}

class Minute {
  readonly queue = new Tally();
  readonly names = new Map<string, Tally>();

  tallyOf(name: string): Tally {
    let key = name.length > NAME_CHARS ? name.slice(0, NAME_CHARS) : name;
    if (!this.names.has(key) && this.names.size >= NAMES_IN_MEMORY) key = OTHER_NAMES;
    let tally = this.names.get(key);
    if (!tally) {
      tally = new Tally();
      this.names.set(key, tally);
    }
    return tally;
  }

  /** The busiest names as they are, the others folded into OTHER_NAMES. */
  boundedNames(): Map<string, Tally> {
    const ranked = [...this.names].sort((a, b) => b[1].events - a[1].events);
    const kept = new Map(ranked.slice(0, NAMES_PER_MINUTE));
    const rest = ranked.slice(NAMES_PER_MINUTE);
    if (rest.length) {
      const other = kept.get(OTHER_NAMES) ?? new Tally();
      for (const [, tally] of rest) other.merge(tally);
      kept.set(OTHER_NAMES, other);
    }
    return kept;
  }
}

export interface TimingRecorderOptions {
  flushIntervalMs: number;
  retention: HistoryRetention;
  onError(error: unknown): void;
}

export class TimingRecorder {
  private minutes = new Map<number, Minute>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly store: TimingHistoryStore,
    private readonly options: TimingRecorderOptions,
  ) {}

  /** An attempt started; `waitMs` is given for a job's first attempt only. */
  started(name: string, waitMs: number | undefined, at = Date.now()): void {
    if (waitMs === undefined) return;
    const wait = Math.max(0, waitMs);
    this.record(name, at, (tally) => {
      tally.add(SERIES.waitBucket + bucketOf(wait));
      tally.add(SERIES.waitSum, wait);
    });
  }

  /** An attempt ended with `outcome` after `runMs` of processing. */
  ended(name: string, outcome: AttemptOutcome, runMs: number, at = Date.now()): void {
    const run = Math.max(0, runMs);
    const series =
      outcome === 'completed'
        ? SERIES.completed
        : outcome === 'failed'
          ? SERIES.failed
          : SERIES.retried;
    this.record(name, at, (tally) => {
      tally.add(series);
      tally.add(SERIES.runBucket + bucketOf(run));
      tally.add(SERIES.runSum, run);
    });
  }

  private record(name: string, at: number, write: (tally: Tally) => void): void {
    const slot = slotStart('minute', at);
    let minute = this.minutes.get(slot);
    if (!minute) {
      minute = new Minute();
      this.minutes.set(slot, minute);
      // A worker that never flushes (manual processing, no run()) keeps the last hour only.
      if (this.minutes.size > MINUTES_IN_MEMORY) {
        this.minutes.delete(Math.min(...this.minutes.keys()));
      }
    }
    const named = minute.tallyOf(name);
    for (const tally of [minute.queue, named]) {
      tally.events += 1;
      write(tally);
    }
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.flush().catch((error: unknown) => this.options.onError(error));
    }, this.options.flushIntervalMs);
    this.timer.unref();
  }

  /**
   * Writes what was counted since the last flush. Counts that could not be written (storage away)
   * go back into memory, at most MINUTES_IN_MEMORY minutes of them, and are written with the
   * next flush.
   */
  async flush(): Promise<void> {
    await this.flushing;
    if (this.minutes.size === 0) return;
    const minutes = this.minutes;
    this.minutes = new Map();
    const entries: HistoryEntry[] = [];
    for (const [at, minute] of minutes) {
      const tallies: [string, Tally][] = [['', minute.queue], ...minute.boundedNames()];
      for (const [name, tally] of tallies) {
        for (const [series, value] of tally.counts) entries.push({ at, series, name, value });
      }
    }
    this.flushing = this.store
      .write(entries, [], this.options.retention)
      .catch((error: unknown) => {
        this.restore(minutes);
        throw error;
      });
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  private restore(minutes: Map<number, Minute>): void {
    const newest = [...minutes.keys()].sort((a, b) => b - a).slice(0, MINUTES_IN_MEMORY);
    for (const at of newest) {
      const minute = minutes.get(at)!;
      const current = this.minutes.get(at);
      if (!current) {
        this.minutes.set(at, minute);
        continue;
      }
      current.queue.merge(minute.queue);
      for (const [name, tally] of minute.names) current.tallyOf(name).merge(tally);
    }
    const excess = [...this.minutes.keys()].sort((a, b) => a - b);
    for (const at of excess.slice(0, Math.max(0, excess.length - MINUTES_IN_MEMORY))) {
      this.minutes.delete(at);
    }
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
