/** Bulk actions on the queue page: on ticked jobs (…/selection) and on a whole state (…/bulk). */
import { z } from 'zod';
import { queueCountStateSchema } from './job-states';
import { jobSearchModeSchema } from './job-row';

const bulkActionSchema = z.enum(['retry', 'promote', 'remove']);
export type BulkAction = z.infer<typeof bulkActionSchema>;
const bulkStatusSchema = z.enum(['running', 'done', 'cancelled']);

/** A search filter, or one error group (`mode: 'error'`, its signature as query). */
const bulkFilterSchema = z.union([
  z.strictObject({ mode: jobSearchModeSchema, query: z.string(), path: z.string().optional() }),
  z.strictObject({ mode: z.literal('error'), query: z.string() }),
]);

export const bulkOperationSchema = z.strictObject({
  id: z.string(),
  prefix: z.string(),
  name: z.string(),
  action: bulkActionSchema,
  state: queueCountStateSchema,
  filter: bulkFilterSchema.nullable(),
  total: z.number(),
  examined: z.number(),
  done: z.number(),
  skipped: z.number(),
  cursor: z.number(),
  status: bulkStatusSchema,
  createdBy: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
type BulkOperation = z.infer<typeof bulkOperationSchema>;
export type BulkOperationResponse = BulkOperation;

export const selectionResultSchema = z.strictObject({
  action: bulkActionSchema,
  done: z.array(z.string()),
  skipped: z.array(z.string()),
});
export type SelectionResult = z.infer<typeof selectionResultSchema>;
