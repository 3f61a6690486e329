/**
 * The redacted view of every admin shape that carries job-derived text (see redaction.ts):
 * a job row (progress, failure reason), a job's detail (data, options, progress, return value,
 * failure reason, stack traces), a page of log lines, a timeline (failure reasons). The
 * console's server module passes each read through these before a route answers, so no route
 * returns job text as stored. Flow graph nodes are redacted while they are read (their failure
 * reason is redacted whole, then shortened: redis/flow-node-info.ts).
 */
import type { JobDetail, JobLogPage } from './job-detail';
import type { JobTimeline } from './redis/job-timeline';
import type { JobRow } from './jobs';
import { DEFAULT_REDACTION, redactString, redactValue, type RedactionRules } from './redaction';

function redactProgress(progress: number | object, rules: RedactionRules): number | object {
  return typeof progress === 'number' ? progress : (redactValue(progress, rules) as object);
}

function redactReason(reason: string | null, rules: RedactionRules): string | null {
  return reason === null ? null : redactString(reason, rules);
}

export function redactJobRow<T extends JobRow>(
  row: T,
  rules: RedactionRules = DEFAULT_REDACTION,
): T {
  return {
    ...row,
    progress: redactProgress(row.progress, rules),
    failedReason: redactReason(row.failedReason, rules),
  };
}

export function redactJobDetail(
  job: JobDetail,
  rules: RedactionRules = DEFAULT_REDACTION,
): JobDetail {
  return {
    ...job,
    data: redactValue(job.data, rules),
    opts: redactValue(job.opts, rules) as Record<string, unknown>,
    progress: redactProgress(job.progress, rules),
    returnvalue: redactValue(job.returnvalue, rules),
    failedReason: redactReason(job.failedReason, rules),
    stacktrace: job.stacktrace.map((trace) => redactString(trace, rules)),
  };
}

export function redactLogPage(
  page: JobLogPage,
  rules: RedactionRules = DEFAULT_REDACTION,
): JobLogPage {
  return {
    ...page,
    lines: page.lines.map((line) => ({ ...line, text: redactString(line.text, rules) })),
  };
}

/** Failure reasons ride on `failed` entries; the other details are numbers, but pass anyway. */
export function redactTimeline(
  timeline: JobTimeline,
  rules: RedactionRules = DEFAULT_REDACTION,
): JobTimeline {
  return {
    ...timeline,
    entries: timeline.entries.map((entry) =>
      entry.detail === undefined ? entry : { ...entry, detail: redactString(entry.detail, rules) },
    ),
  };
}
