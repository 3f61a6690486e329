/**
 * The lines of an export (GET /api/queues/:prefix/:name/export?format=jsonl): one record per job,
 * and, when a cap cut the export short, a last line saying so (lib/server/export-stream.ts).
 * CSV exports carry the same record fields as columns, in EXPORT_RECORD_FIELDS order.
 */
import { z } from 'zod';
import { queueCountStateSchema } from './job-states';

const ms = z.number();

const exportRecordSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  state: queueCountStateSchema,
  timestamp: ms,
  processedOn: ms.nullable(),
  finishedOn: ms.nullable(),
  attemptsMade: z.number(),
  delay: z.number(),
  progress: z.unknown(),
  failedReason: z.string().nullable(),
  data: z.unknown(),
  returnvalue: z.unknown(),
});
export type ExportRecordLine = z.infer<typeof exportRecordSchema>;

/** The CSV header: the record's fields in order. */
export const EXPORT_RECORD_FIELDS = exportRecordSchema.keyof().options;

const exportCutSchema = z.strictObject({
  truncated: z.enum(['rows', 'time']),
  rows: z.number(),
});

export const exportLineSchema = z.union([exportRecordSchema, exportCutSchema]);
export type ExportLine = z.infer<typeof exportLineSchema>;
