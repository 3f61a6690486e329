/**
 * `tenant-sync`: syncs one tenant's account with a CRM (400-900 ms). Every job is in its
 * tenant's group, and each group runs one job at a time (the producer sets the group default),
 * so a burst from `acme` queues in acme's line while the other tenants keep moving.
 */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../runner';
import { DEMO_QUEUES, SHARED_WORKER_OPTIONS } from '../queues';
import { between, work } from '../timing';

export const queue = DEMO_QUEUES.tenantSync;

export const options: ProcessorOptions = { ...SHARED_WORKER_OPTIONS, concurrency: 3 };

export interface TenantSyncData {
  tenant: string;
  records: number;
}

export default async function syncTenant(job: Job<TenantSyncData>) {
  await work(between(400, 900));
  return { tenant: job.data.tenant, synced: job.data.records };
}
