/**
 * `partner-api`: calls to a partner that allows 2 requests a second. The producer adds jobs in
 * bursts, so they queue behind the limiter and the queue page's "Why isn't this queue moving?"
 * panel says the rate limiter holds them back.
 */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../runner';
import { DEMO_QUEUES, PARTNER_API_LIMIT, SHARED_WORKER_OPTIONS } from '../queues';
import { between, work } from '../timing';

export const queue = DEMO_QUEUES.partnerApi;

export const options: ProcessorOptions = {
  ...SHARED_WORKER_OPTIONS,
  concurrency: 2,
  limiter: PARTNER_API_LIMIT,
};

export interface PartnerCallData {
  partner: string;
  endpoint: string;
  contactId: number;
}

export default async function callPartner(job: Job<PartnerCallData>) {
  await work(between(100, 400));
  return { status: 200, endpoint: job.data.endpoint, contactId: job.data.contactId };
}
