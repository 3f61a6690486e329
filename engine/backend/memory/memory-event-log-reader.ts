/** EventLogReader in memory: reads one queue's log (event-log.ts) after a known id. */
import type { QueueKeys } from '../../queue/keys';
import type { EventLogEntry, EventLogReader } from '../event-log';
import type { MemoryStore } from './memory-store';

export class MemoryEventLogReader implements EventLogReader {
  constructor(
    private readonly store: MemoryStore,
    private readonly keys: QueueKeys,
    /** The connection's: a read ends when it is closed. */
    private readonly closed?: AbortSignal,
  ) {}

  async lastId(): Promise<string> {
    return this.store.queue(this.keys).events.lastId();
  }

  /** Always answers: the storage is in this process. */
  async ping(): Promise<void> {}

  read(afterId: string, blockMs: number): Promise<EventLogEntry[]> {
    return this.store.queue(this.keys).events.read(afterId, blockMs, this.closed);
  }
}
