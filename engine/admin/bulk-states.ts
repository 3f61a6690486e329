/**
 * Which states each bulk action takes jobs from: the server's rule (redis/bulk.ts, the bulk route)
 * and the queue page's buttons read this one module. It imports nothing at run time, so a client
 * component can import it without pulling the engine into the browser bundle.
 */
import type { QueueCountState } from './redis/queues';

export const BULK_ACTIONS = ['retry', 'promote', 'remove'] as const;

export type BulkAction = (typeof BULK_ACTIONS)[number];

export const BULK_ACTION_STATES: Record<BulkAction, readonly QueueCountState[]> = {
  retry: ['failed', 'completed'],
  promote: ['delayed'],
  remove: ['waiting', 'delayed', 'prioritized', 'completed', 'failed', 'waiting-children'],
};
