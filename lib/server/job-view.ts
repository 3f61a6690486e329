/**
 * Shapes a job for the browser: data, options, return value, progress, failure reason and stack
 * traces pass through redaction here, on the server, so secrets never leave it.
 */
import 'server-only';
import type { JobChildrenPage, JobDetail } from '@/engine/admin';
import type { JobDetailResponse } from '../api-types';
import { traceUrlOf } from './links';
import { redact, redactKeys, redactText } from './redact';

export function toJobView(
  prefix: string,
  queueName: string,
  job: JobDetail,
  children: JobChildrenPage,
): JobDetailResponse {
  const names = redactKeys();
  // The trace context itself stays here; the page shows its trace id.
  const { traceparent: _traceparent, tracestate: _tracestate, ...rest } = job;
  return {
    ...rest,
    prefix,
    queueName,
    data: redact(job.data, names),
    opts: redact(job.opts, names) as Record<string, unknown>,
    progress: redact(job.progress, names) as number | object,
    returnvalue: redact(job.returnvalue, names),
    failedReason: job.failedReason === null ? null : redactText(job.failedReason, names),
    stacktrace: job.stacktrace.map((trace) => redactText(trace, names)),
    redactedKeys: [...names],
    traceUrl: traceUrlOf(job.traceId),
    children,
  };
}
