/** `digest`: fed by a job scheduler (every 30 s of demo time); each run is quick. */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../runner';
import { DEMO_QUEUES, SHARED_WORKER_OPTIONS } from '../queues';
import { between, work } from '../timing';

export const queue = DEMO_QUEUES.digest;

export const options: ProcessorOptions = { ...SHARED_WORKER_OPTIONS, concurrency: 1 };

export interface DigestData {
  audience: string;
}

export default async function sendDigest(job: Job<DigestData>) {
  await work(between(100, 300));
  return { audience: job.data.audience, recipients: between(10, 40) };
}
