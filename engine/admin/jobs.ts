/**
 * Paged job listings for the console's queue page, and the limits of its
 * bounded search (job-search.ts). Every read is a bounded range: a page is at most
 * JOB_LIST_LIMITS.maxPageSize jobs. Rows carry job text as stored; the console answers them
 * through its redacted view (redacted-views.ts).
 */
import { jobKeyKind } from './redis/job-id';
import type { RedisClient } from '../backend/redis/connection';
import type { Job } from '../job/job';
import type { QueueCountState } from './redis/queues';
import { queueHandle } from './queue-handle';

export const JOB_LIST_LIMITS = {
  maxPageSize: 100,
  /** Jobs a single search call examines at most. */
  maxSearchBudget: 5_000,
  defaultSearchBudget: 5_000,
  /**
   * Bytes of job hash fields a single search call reads at most: with the job cap, what bounds
   * one viewer request however large the jobs are.
   */
  maxSearchBytes: 8 * 1024 * 1024,
  /** Jobs fetched per round trip while scanning. */
  searchChunk: 200,
  /** Matches a search call returns at most (it stops early when it has them). */
  maxMatches: 50,
  /** Characters of a job's data the search looks at; huge payloads are cut, not parsed twice. */
  maxDataChars: 64 * 1024,
} as const;

export interface JobRow {
  id: string;
  name: string;
  /** ms since epoch the job was created. */
  timestamp: number;
  attemptsMade: number;
  progress: number | object;
  processedOn: number | null;
  finishedOn: number | null;
  delay: number;
  failedReason: string | null;
}

export interface JobPage {
  state: QueueCountState;
  jobs: JobRow[];
  total: number;
  page: number;
  pageSize: number;
}

/** Newest first for finished states (like bullmq's getCompleted), oldest first otherwise. */
function ascending(state: QueueCountState): boolean {
  return state !== 'completed' && state !== 'failed';
}

export function toJobRow(job: Job): JobRow {
  return {
    id: job.id,
    name: job.name,
    timestamp: job.timestamp,
    attemptsMade: job.attemptsMade,
    progress: job.progress,
    processedOn: job.processedOn ?? null,
    finishedOn: job.finishedOn ?? null,
    delay: job.delay,
    failedReason: job.failedReason ?? null,
  };
}

export async function listJobs(
  client: RedisClient,
  prefix: string,
  name: string,
  opts: { state: QueueCountState; page: number; pageSize: number },
): Promise<JobPage> {
  const pageSize = Math.max(1, Math.min(opts.pageSize, JOB_LIST_LIMITS.maxPageSize));
  const page = Math.max(1, opts.page);
  const start = (page - 1) * pageSize;
  const queue = queueHandle(client, prefix, name);
  const [jobs, counts] = await Promise.all([
    queue.getJobs([opts.state], start, start + pageSize - 1, ascending(opts.state)),
    queue.getJobCounts(opts.state),
  ]);
  return {
    state: opts.state,
    jobs: jobs.map(toJobRow),
    total: counts[opts.state] ?? 0,
    page,
    pageSize,
  };
}

export async function findJob(
  client: RedisClient,
  prefix: string,
  name: string,
  id: string,
): Promise<(JobRow & { state: string }) | null> {
  // `1:processed` would read a job's children's record as if it were a job.
  if ((await jobKeyKind(client, prefix, name, id)) !== 'job') return null;
  const job = await queueHandle(client, prefix, name).getJob(id);
  if (!job) return null;
  return { ...toJobRow(job), state: await job.getState() };
}
