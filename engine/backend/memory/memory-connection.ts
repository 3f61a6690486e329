/**
 * The memory storage's StorageConnection: nothing to open, always reachable; closing it ends
 * the waits made through it (a worker's wait for work, a QueueEvents' read), which would
 * otherwise hold their timers until they run out.
 */
import { ValidationError } from '../../errors';
import type { StorageConnection } from '../storage';

export class MemoryConnection implements StorageConnection {
  private readonly closing = new AbortController();

  /** Aborted once the connection is closed. */
  get signal(): AbortSignal {
    return this.closing.signal;
  }

  async ready(): Promise<void> {}

  async settled(): Promise<void> {}

  /** Never: the storage lives in this process. */
  lost(): Promise<void> {
    return new Promise(() => undefined);
  }

  /** Nothing fails outside a call here. */
  onError(): void {}

  async close(): Promise<void> {
    this.closing.abort();
  }

  async disconnect(): Promise<void> {
    this.closing.abort();
  }
}

export function memoryConnectionOf(connection: StorageConnection): MemoryConnection {
  if (connection instanceof MemoryConnection) return connection;
  throw new ValidationError('the memory storage was handed a connection of another storage');
}
