/** Workers: every queue's connections merged with OxMQ heartbeats, and one queue's live workers. */
import { z } from 'zod';
import { rateLimitSchema } from './job-states';

const connectedWorkerSchema = z.strictObject({
  id: z.string(),
  workerName: z.string().optional(),
  rawname: z.string(),
  addr: z.string(),
  age: z.number(),
  idle: z.number(),
});

const queueWorkersSchema = z.strictObject({
  prefix: z.string(),
  name: z.string(),
  workers: z.array(connectedWorkerSchema),
});

const workerHeartbeatSchema = z.strictObject({
  id: z.string(),
  workerName: z.string().optional(),
  queue: z.string(),
  prefix: z.string(),
  host: z.string(),
  pid: z.number(),
  version: z.string(),
  concurrency: z.number(),
  active: z.number(),
  jobIds: z.array(z.string()),
  completed: z.number(),
  failed: z.number(),
  lockRenewalFailures: z.number(),
  quiet: z.boolean(),
  paused: z.boolean(),
  startedAt: z.number(),
  lastHeartbeat: z.number(),
  heartbeatInterval: z.number(),
  clientAddress: z.string().optional(),
  /** The Worker's own `limiter` option, when it has one. */
  limiter: rateLimitSchema.optional(),
});

const workerRosterKindSchema = z.enum(['oxmq', 'no-heartbeat']);

const workerRosterRowSchema = z.strictObject({
  kind: workerRosterKindSchema,
  workerName: z.string().optional(),
  heartbeat: workerHeartbeatSchema.optional(),
  connections: z.array(connectedWorkerSchema),
  matchedBy: z.enum(['address', 'name']).optional(),
});
export type WorkerRosterRow = z.infer<typeof workerRosterRowSchema>;

const queueWorkerRosterSchema = queueWorkersSchema.extend({
  rows: z.array(workerRosterRowSchema),
  heartbeatTotal: z.number(),
});
export type QueueWorkerRoster = z.infer<typeof queueWorkerRosterSchema>;

/** GET /api/workers. */
export const workersResponseSchema = z.strictObject({
  queues: z.array(queueWorkerRosterSchema),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
  /** False when queue discovery hit its scan budget. */
  complete: z.boolean(),
});
export type WorkersResponse = z.infer<typeof workersResponseSchema>;

/** GET …/workers: the queue's live OxMQ workers, from their heartbeats. */
export const queueHeartbeatsResponseSchema = z.strictObject({
  workers: z.array(workerHeartbeatSchema),
  /** Heartbeat index members (may include expired ones not pruned yet). */
  total: z.number(),
});
export type QueueHeartbeatsResponse = z.infer<typeof queueHeartbeatsResponseSchema>;

/** POST …/workers/:workerId/quiet and …/resume; the worker acts on its next heartbeat. */
export const workerCommandResponseSchema = z.strictObject({
  ok: z.literal(true),
  pendingUntilNextHeartbeat: z.literal(true),
});
export type WorkerCommandResponse = z.infer<typeof workerCommandResponseSchema>;

/** POST …/jobs/:id/cancel: what the request could reach. */
export const jobCancelResponseSchema = z.strictObject({
  outcome: z.enum(['requested', 'not-active', 'held-by-bullmq']),
});
export type JobCancelResponse = z.infer<typeof jobCancelResponseSchema>;

/**
 * GET …/jobs/:id/cancel: the cancel request made for the attempt now running (null when none),
 * how long ago it was made, and whether a force stop can work (the holding worker's processor is
 * sandboxed). After `graceMs` without the job stopping, the job page says the processor ignores
 * the cancel.
 */
export interface JobCancelStateResponse {
  request: {
    reason: string;
    /** ms since the request, by the console server's clock. */
    ageMs: number;
    forced: boolean;
  } | null;
  canForce: boolean;
  graceMs: number;
}
