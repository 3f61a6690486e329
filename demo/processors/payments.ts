/** `payments`: the "charge card" child of each order flow. Its result feeds "ship order". */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../runner';
import { DEMO_QUEUES, SHARED_WORKER_OPTIONS } from '../queues';
import { between, work } from '../timing';

export const queue = DEMO_QUEUES.payments;

export const options: ProcessorOptions = { ...SHARED_WORKER_OPTIONS, concurrency: 3 };

export interface PaymentData {
  orderId: string;
  amountCents: number;
  currency: string;
}

export interface PaymentResult {
  paymentId: string;
  amountCents: number;
  currency: string;
}

export default async function chargeCard(job: Job<PaymentData>): Promise<PaymentResult> {
  await job.log(`charging ${job.data.amountCents / 100} ${job.data.currency}`);
  await work(between(300, 800));
  return {
    paymentId: `pay_${job.id}`,
    amountCents: job.data.amountCents,
    currency: job.data.currency,
  };
}
