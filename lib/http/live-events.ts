/** The data of every `event: events` message on GET /api/events. */
import { z } from 'zod';

const liveEventSchema = z.strictObject({
  id: z.string(),
  event: z.string(),
  jobId: z.string().optional(),
});

const liveEventBatchSchema = z.strictObject({
  prefix: z.string(),
  name: z.string(),
  events: z.array(liveEventSchema),
});
export type LiveEventBatch = z.infer<typeof liveEventBatchSchema>;

export const liveEventsMessageSchema = z.strictObject({ batches: z.array(liveEventBatchSchema) });
export type LiveEventsMessage = z.infer<typeof liveEventsMessageSchema>;
