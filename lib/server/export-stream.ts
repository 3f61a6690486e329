/**
 * The lines of an export: every job of a state (or every one a search filter keeps) as JSON
 * lines or CSV, redacted, in walk order, up to a row cap. Nothing is collected first: each
 * window of the walk is written as the client reads. An export cut short by a cap ends with a
 * last line saying so (a `{"truncated":...}` object, or a CSV row starting with `#`), so a file
 * never looks complete when it is not.
 */
import 'server-only';
import type { JobFilter, ScanOrder } from 'oxmq/admin';
import type { QueueCountState } from '@/lib/api-types';
import { csvRow } from '@/lib/csv';
import { EXPORT_RECORD_FIELDS, type ExportLine, type ExportRecordLine } from '@/lib/http/export';
import { admin } from './oxmq';

export const EXPORT_LIMITS = {
  /** Rows one export writes at most (`limit` may ask for fewer). */
  maxRows: 100_000,
  /** How long one export may walk. */
  maxDurationMs: 300_000,
} as const;

type ExportFormat = 'jsonl' | 'csv';

export interface ExportRequest {
  prefix: string;
  name: string;
  state: QueueCountState;
  order: ScanOrder;
  filter: JobFilter | null;
  format: ExportFormat;
  limit: number;
}

function jsonLine(line: ExportLine): string {
  return `${JSON.stringify(line)}\n`;
}

function formatRecord(record: ExportRecordLine, format: ExportFormat): string {
  if (format === 'jsonl') return jsonLine(record);
  return csvRow(EXPORT_RECORD_FIELDS.map((field) => record[field]));
}

function formatCut(reason: 'rows' | 'time', written: number, format: ExportFormat): string {
  if (format === 'jsonl') return jsonLine({ truncated: reason, rows: written });
  return csvRow([`# truncated: ${reason} cap reached after ${written} rows`]);
}

export async function* exportLines(
  request: ExportRequest,
  limits = EXPORT_LIMITS,
): AsyncGenerator<string, void> {
  const started = Date.now();
  const cap = Math.min(request.limit, limits.maxRows);
  if (request.format === 'csv') yield csvRow(EXPORT_RECORD_FIELDS);
  const walk = admin().jobs.scanRecords(request.prefix, request.name, {
    state: request.state,
    order: request.order,
    filter: request.filter,
  });
  let written = 0;
  for await (const step of walk) {
    const room = cap - written;
    const records = step.views.slice(0, room);
    if (records.length > 0) {
      yield records.map((record) => formatRecord(record, request.format)).join('');
      written += records.length;
    }
    // Cut only when a row really was left out: a walk that ends right at the cap is complete.
    if (step.views.length > room) {
      yield formatCut('rows', written, request.format);
      return;
    }
    if (step.done) return;
    if (Date.now() - started > limits.maxDurationMs) {
      yield formatCut('time', written, request.format);
      return;
    }
  }
}
