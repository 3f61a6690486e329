/**
 * Shapes a job for the browser. The detail arrives already redacted (the admin object of
 * engine/admin/create-admin.ts reads it through the engine's redacted view), so secrets never leave the server.
 */
import 'server-only';
import type { JobChildrenPage, JobDetail } from 'oxmq/admin';
import type { JobDetailResponse } from '../api-types';
import { traceUrlOf } from './links';
import { redactedKeyNames } from './redact';

export function toJobView(
  prefix: string,
  queueName: string,
  job: JobDetail,
  children: JobChildrenPage,
): JobDetailResponse {
  // The trace context itself stays here; the page shows its trace id.
  const { traceparent: _traceparent, tracestate: _tracestate, ...rest } = job;
  return {
    ...rest,
    prefix,
    queueName,
    redactedKeys: redactedKeyNames(),
    traceUrl: traceUrlOf(job.traceId),
    children,
  };
}
