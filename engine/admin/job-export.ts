/**
 * What an export holds per job: a row's fields plus its data and return value, and the state it
 * was exported from. The console writes these as JSON lines or CSV after redacting them
 * (redactExportRecord), like every other view of job text.
 */
import type { Job } from '../job/job';
import type { QueueCountState } from './redis/queues';
import { redactString, redactValue, type RedactionRules } from './redaction';

export interface ExportRecord {
  id: string;
  name: string;
  state: QueueCountState;
  /** ms since epoch the job was created. */
  timestamp: number;
  processedOn: number | null;
  finishedOn: number | null;
  attemptsMade: number;
  delay: number;
  progress: unknown;
  failedReason: string | null;
  data: unknown;
  returnvalue: unknown;
}

/** The columns of an export, in order (a CSV header). */
export const EXPORT_COLUMNS: readonly (keyof ExportRecord)[] = [
  'id',
  'name',
  'state',
  'timestamp',
  'processedOn',
  'finishedOn',
  'attemptsMade',
  'delay',
  'progress',
  'failedReason',
  'data',
  'returnvalue',
];

export function toExportRecord(job: Job, state: QueueCountState): ExportRecord {
  return {
    id: job.id,
    name: job.name,
    state,
    timestamp: job.timestamp,
    processedOn: job.processedOn ?? null,
    finishedOn: job.finishedOn ?? null,
    attemptsMade: job.attemptsMade,
    delay: job.delay,
    progress: job.progress,
    failedReason: job.failedReason ?? null,
    data: job.data ?? null,
    returnvalue: job.returnvalue ?? null,
  };
}

export function redactExportRecord(record: ExportRecord, rules: RedactionRules): ExportRecord {
  return {
    ...record,
    progress: redactValue(record.progress, rules),
    failedReason: record.failedReason === null ? null : redactString(record.failedReason, rules),
    data: redactValue(record.data, rules),
    returnvalue: redactValue(record.returnvalue, rules),
  };
}
