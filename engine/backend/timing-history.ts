/**
 * Where a queue's timing history is kept (docs/metrics.md, "Timing history"): per minute and per
 * hour, counts that add up (outcomes, wait and run times by bucket) and samples that replace
 * each other (backlogs). A worker's TimingRecorder (engine/history/timing-recorder.ts) writes
 * through it. A field is `<slot start ms>|<series>|<name>` (engine/history/history-keys.ts).
 * The Redis implementation is engine/backend/redis/history-store.ts.
 */
import type { HistoryRetention, Resolution } from '../history/history-keys';

/** One field of the history at one minute: a count to add, or a value to set. */
export interface HistoryEntry {
  /** Any time inside the minute. */
  at: number;
  series: string;
  name: string;
  value: number;
}

export interface TimingHistoryStore {
  /**
   * Adds `adds` to, and sets `sets` in, the minute of each entry and the hour around it (an
   * hour keeps the last sample set in it), kept for `retention` past the hour (day) they are in.
   */
  write(
    adds: readonly HistoryEntry[],
    sets: readonly HistoryEntry[],
    retention: HistoryRetention,
  ): Promise<void>;
  /** Every field of the slots of `resolution` starting in [from, to), with its value. */
  read(resolution: Resolution, from: number, to: number): Promise<Record<string, number>>;
}
