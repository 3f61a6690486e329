/**
 * `orders`: the parent of each order flow ("ship order"). It only runs once its children in
 * `payments` and `inventory` have completed, and ships with what they returned.
 */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../runner';
import { DEMO_QUEUES, SHARED_WORKER_OPTIONS } from '../queues';
import { between, work } from '../timing';
import type { InventoryResult } from './inventory';
import type { PaymentResult } from './payments';

export const queue = DEMO_QUEUES.orders;

export const options: ProcessorOptions = { ...SHARED_WORKER_OPTIONS, concurrency: 2 };

export interface OrderData {
  orderId: string;
  customer: string;
}

/** Child results are keyed `<prefix>:<queue>:<id>`; the queue part says which child it was. */
function childFrom<T>(values: Record<string, unknown>, queueName: string): T {
  // A child's key is `<prefix>:<queue>:<id>`; with OXMQ_CLUSTER_HASH_TAGS the queue is `{name}`.
  const entry = Object.entries(values).find(
    ([key]) =>
      key
        .split(':')
        .at(-2)
        ?.replace(/^\{(.*)\}$/, '$1') === queueName,
  );
  if (!entry) throw new Error(`order has no ${queueName} result`);
  return entry[1] as T;
}

export default async function shipOrder(job: Job<OrderData>) {
  const values = await job.getChildrenValues();
  const payment = childFrom<PaymentResult>(values, DEMO_QUEUES.payments);
  const reservation = childFrom<InventoryResult>(values, DEMO_QUEUES.inventory);
  await job.log(`payment ${payment.paymentId}, reservation ${reservation.reservationId}`);
  await work(between(500, 1500));
  return {
    orderId: job.data.orderId,
    shipmentId: `shp_${job.id}`,
    trackingNumber: `1Z${between(100000, 999999)}NL`,
    paymentId: payment.paymentId,
    items: reservation.reserved,
  };
}
