/**
 * The lines of a streamed search (GET /api/queues/:prefix/:name/search/stream, NDJSON): progress
 * and matches repeat as the walk goes, `end` or `error` comes last (lib/server/search-stream.ts).
 */
import { z } from 'zod';
import { jobRowSchema } from './job-row';

/** Why a streamed search ended: null when it looked at the whole state. */
const searchStreamStopSchema = z.enum(['matches', 'time']).nullable();
export type SearchStreamStop = z.infer<typeof searchStreamStopSchema>;

const walked = {
  scanned: z.number(),
  total: z.number(),
  found: z.number(),
  tooLarge: z.number(),
};

export const searchStreamLineSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('progress'), ...walked }),
  z.strictObject({ type: z.literal('matches'), jobs: z.array(jobRowSchema) }),
  z.strictObject({ type: z.literal('end'), ...walked, stoppedBy: searchStreamStopSchema }),
  z.strictObject({ type: z.literal('error'), code: z.string(), message: z.string() }),
]);
export type SearchStreamLine = z.infer<typeof searchStreamLineSchema>;
