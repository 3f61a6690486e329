/**
 * The job states the HTTP API names: the states a queue counts and lists (engine/admin/queues.ts,
 * QUEUE_COUNT_STATES) and the state a job read answers (engine/backend/queue-operations.ts).
 * Declared here, not imported, so client bundles never pull engine code; a route that answers
 * an engine state this list lacks fails to type-check.
 */
import { z } from 'zod';

export const queueCountStateSchema = z.enum([
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'completed',
  'failed',
  'waiting-children',
]);
export type QueueCountState = z.infer<typeof queueCountStateSchema>;

/** A job's state as read; `unknown` when its id is in no state list. */
export const jobStateSchema = z.enum([...queueCountStateSchema.options, 'unknown']);
export type JobStateReply = z.infer<typeof jobStateSchema>;

/** A { max, duration } rate limit: at most `max` job starts per `duration` ms. */
export const rateLimitSchema = z.strictObject({ max: z.number(), duration: z.number() });
