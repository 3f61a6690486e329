/** `inventory`: the "reserve items" child of each order flow. Its result feeds "ship order". */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../runner';
import { DEMO_QUEUES, SHARED_WORKER_OPTIONS } from '../queues';
import { between, work } from '../timing';

export const queue = DEMO_QUEUES.inventory;

export const options: ProcessorOptions = { ...SHARED_WORKER_OPTIONS, concurrency: 3 };

export interface InventoryData {
  orderId: string;
  items: { sku: string; quantity: number }[];
}

export interface InventoryResult {
  reservationId: string;
  warehouse: string;
  reserved: number;
}

export default async function reserveItems(job: Job<InventoryData>): Promise<InventoryResult> {
  await work(between(200, 600));
  return {
    reservationId: `res_${job.id}`,
    warehouse: 'AMS-2',
    reserved: job.data.items.reduce((sum, item) => sum + item.quantity, 0),
  };
}
