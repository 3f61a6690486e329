/**
 * The filter an "all matching" bulk operation carries: a search's (queue-page-input.ts), or an
 * error group's signature as GET error-groups answered it (engine/admin/error-group-filter.ts).
 */
import 'server-only';
import { z } from 'zod';
import { SIGNATURE_LIMITS } from 'oxmq/admin';
import { jobFilterSchema } from './queue-page-input';

const errorGroupFilterSchema = z
  .object({
    mode: z.literal('error'),
    query: z.string().min(1).max(SIGNATURE_LIMITS.maxChars),
  })
  .strict();

export const bulkFilterSchema = z.union([errorGroupFilterSchema, jobFilterSchema]);
