/**
 * The filter that makes "Retry group" / "Remove group" an ordinary bulk operation (redis/bulk.ts):
 * a job matches when the signature of its redacted failure reason is the group's signature, the
 * same test the grouping applies (redis/error-groups.ts), so a group's bulk run acts on the jobs
 * the group counted and on no other.
 */
import type { Job } from '../job/job';
import { errorSignature } from './error-signature';
import { jobMatcher, type JobFilter } from './job-search';
import { DEFAULT_REDACTION, redactString, type RedactionRules } from './redaction';

export interface ErrorGroupFilter {
  mode: 'error';
  /** The group's signature, exactly as the grouping answered it. */
  query: string;
}

/** What an "all matching" bulk operation may filter by: a search, or an error group. */
export type BulkFilter = JobFilter | ErrorGroupFilter;

export function isErrorGroupFilter(filter: BulkFilter): filter is ErrorGroupFilter {
  return filter.mode === 'error';
}

/** The signature of a job's failure reason as the console sees it (redacted first). */
export function jobErrorSignature(job: Job, rules: RedactionRules = DEFAULT_REDACTION): string {
  return errorSignature(job.failedReason ? redactString(job.failedReason, rules) : null);
}

/** The bulk filter as a predicate over jobs; search filters are the search's own matcher. */
export function bulkFilterMatcher(
  filter: BulkFilter,
  rules: RedactionRules = DEFAULT_REDACTION,
): (job: Job) => boolean {
  if (!isErrorGroupFilter(filter)) return jobMatcher(filter, rules);
  return (job) => jobErrorSignature(job, rules) === filter.query;
}
