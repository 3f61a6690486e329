/**
 * The reading side of a queue's event log (bullmq's events stream, docs/redis-keys.md), as
 * QueueEvents consumes it: entries in order, each with an id that orders it and the event's
 * fields, read after a known id so that a reader that resumes from its last id misses nothing.
 * The Redis implementation is engine/backend/redis/event-log-reader.ts.
 */

/** One entry: its id and its fields as a flat name, value, name, value... list. */
export type EventLogEntry = [id: string, fields: string[]];

export interface EventLogReader {
  /** The id of the newest entry, or '0-0' when there is none: reading after it gets only later ones. */
  lastId(): Promise<string>;
  /** Resolves once storage answers over this reader's connection. */
  ping(): Promise<void>;
  /**
   * The entries after `afterId`, waiting up to `blockMs` (0: without limit) for the first; none
   * when the wait ended empty or had to be abandoned. The read is under way when this returns.
   */
  read(afterId: string, blockMs: number): Promise<EventLogEntry[]>;
}
