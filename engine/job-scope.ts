import type { EventEmitter } from 'node:events';
import type { QueueBackend } from './backend/queue-backend';
import type { QueueOperations } from './backend/queue-operations';

/** What a Job needs from the Queue or Worker that produced it. */
export interface JobScope {
  readonly name: string;
  readonly prefix: string;
  readonly backend: QueueBackend;
  readonly ops: QueueOperations;
  /** Receives local `progress` events (the Worker, when the job is being processed). */
  readonly emitter?: EventEmitter;
}
