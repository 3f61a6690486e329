/**
 * The job states the HTTP API names: the states a queue counts and lists (the engine's one list,
 * QUEUE_COUNT_STATES in engine/admin/redis/queues.ts, a plain constant) and the state a job read
 * answers. Client components import only the types (lib/api-types.ts), never these schemas.
 */
import { QUEUE_COUNT_STATES } from 'oxmq/admin';
import { z } from 'zod';

export const queueCountStateSchema = z.enum(QUEUE_COUNT_STATES);
export type QueueCountState = z.infer<typeof queueCountStateSchema>;

/** A job's state as read; `unknown` when its id is in no state list. */
export const jobStateSchema = z.enum([...queueCountStateSchema.options, 'unknown']);

/** A { max, duration } rate limit: at most `max` job starts per `duration` ms. */
export const rateLimitSchema = z.strictObject({ max: z.number(), duration: z.number() });
