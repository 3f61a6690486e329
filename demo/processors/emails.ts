/** `emails`: quick jobs (50-300 ms), many at once, like a transactional mail sender. */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../runner';
import { DEMO_QUEUES, SHARED_WORKER_OPTIONS } from '../queues';
import { between, work } from '../timing';

export const queue = DEMO_QUEUES.emails;

export const options: ProcessorOptions = { ...SHARED_WORKER_OPTIONS, concurrency: 5 };

export interface EmailData {
  to: string;
  template: string;
}

export default async function sendEmail(job: Job<EmailData>) {
  await work(between(50, 300));
  return { messageId: `<${job.id}@mail.demo.oxmq>`, accepted: [job.data.to] };
}
