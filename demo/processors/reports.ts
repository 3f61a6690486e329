/**
 * `reports`: flaky on purpose. About half the attempts fail with an error a real warehouse
 * query could raise; the producer adds these jobs with 4 attempts and exponential backoff, so
 * the console shows retries, jobs that made it on a later attempt, and a few that never did.
 */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../runner';
import { DEMO_QUEUES, SHARED_WORKER_OPTIONS } from '../queues';
import { between, pick, work } from '../timing';

export const queue = DEMO_QUEUES.reports;

export const options: ProcessorOptions = { ...SHARED_WORKER_OPTIONS, concurrency: 2 };

export interface ReportData {
  report: string;
  month: string;
}

class WarehouseQueryError extends Error {
  override name = 'WarehouseQueryError';
}

const FAILURES = [
  'connect ETIMEDOUT 10.0.3.17:5432 (warehouse read replica)',
  'canceling statement due to statement timeout (30000 ms)',
  'could not serialize access due to concurrent update',
  'remaining connection slots are reserved for non-replication superuser connections',
] as const;

export default async function buildReport(job: Job<ReportData>) {
  await job.log(`querying ${job.data.report} for ${job.data.month}`);
  await work(between(400, 1200));
  if (Math.random() < 0.5) throw new WarehouseQueryError(pick(FAILURES));
  return { report: job.data.report, rows: between(200, 5000), url: `s3://reports/${job.id}.csv` };
}
