/**
 * What the producer adds, to which queue, how often (in demo time, see timing.ts). About 5.5 jobs
 * a second at speed 1: a lively console, a light load.
 */
import type { FlowProducer, Queue } from 'oxmq';
import { DEMO_QUEUES, DEMO_TENANTS, type DemoQueueName } from './queues';
import {
  emailData,
  orderData,
  partnerCallData,
  reportData,
  tenantSyncData,
  transcodeData,
} from './sample-data';
import { pick, scaled } from './timing';

export interface FeedContext {
  queues: Record<DemoQueueName, Queue>;
  flows: FlowProducer;
}

export interface Feed {
  /** Names the feed in logs and in the added-jobs summary. */
  name: string;
  /** Ms between two runs: demo time unless `realTime`. */
  everyMs: number;
  /** The interval is not divided by OXMQ_DEMO_SPEED. */
  realTime?: boolean;
  /** Queues whose backlog must be below the cap before this feed adds more. */
  guards: DemoQueueName[];
  /** Adds this run's jobs; resolves to how many. */
  add: (context: FeedContext) => Promise<number>;
}

export const FEEDS: Feed[] = [
  {
    name: 'emails',
    everyMs: 500,
    guards: [DEMO_QUEUES.emails],
    add: async ({ queues }) => {
      const data = emailData();
      await queues.emails.add(`send ${data.template}`, data);
      return 1;
    },
  },
  {
    name: 'transcode',
    // 2 at a time, 8-15 s each: a new video every 7 s keeps a short line, never a growing one.
    everyMs: 7000,
    guards: [DEMO_QUEUES.transcode],
    add: async ({ queues }) => {
      await queues.transcode.add('transcode video', transcodeData());
      return 1;
    },
  },
  {
    name: 'order flow',
    everyMs: 4000,
    guards: [DEMO_QUEUES.orders, DEMO_QUEUES.payments, DEMO_QUEUES.inventory],
    // The queues' own names: with OXMQ_CLUSTER_HASH_TAGS they carry their hash tags.
    add: async ({ flows, queues }) => {
      const order = orderData();
      await flows.add({
        name: 'ship order',
        queueName: queues.orders.name,
        data: { orderId: order.orderId, customer: order.customer },
        children: [
          { name: 'charge card', queueName: queues.payments.name, data: order.payment },
          { name: 'reserve items', queueName: queues.inventory.name, data: order.inventory },
        ],
      });
      return 3;
    },
  },
  {
    name: 'reports',
    everyMs: 3000,
    guards: [DEMO_QUEUES.reports],
    add: async ({ queues }) => {
      const data = reportData();
      await queues.reports.add(`build ${data.report}`, data, {
        attempts: 4,
        backoff: { type: 'exponential', delay: scaled(1000) },
      });
      return 1;
    },
  },
  {
    name: 'partner-api burst',
    // A burst of 10 against a limit of 2/s drains in ~5 s: half the time the queue waits. Real
    // time, because the limit is real time too: scaled bursts would outgrow the limit.
    everyMs: 12_000,
    realTime: true,
    guards: [DEMO_QUEUES.partnerApi],
    add: async ({ queues }) => {
      const jobs = Array.from({ length: 10 }, () => {
        const data = partnerCallData();
        return { name: `POST ${data.endpoint}`, data };
      });
      await queues['partner-api'].addBulk(jobs);
      return jobs.length;
    },
  },
  {
    name: 'tenant sync',
    // One job for a random tenant every 1.5 s, and every 20 s a burst of 8 from acme: acme's
    // line grows while the other tenants' jobs still start (one at a time per tenant).
    everyMs: 1500,
    guards: [DEMO_QUEUES.tenantSync],
    add: async ({ queues }) => {
      const queue = queues[DEMO_QUEUES.tenantSync];
      const tenant = pick(DEMO_TENANTS);
      await queue.add(`sync ${tenant}`, tenantSyncData(tenant), { group: { id: tenant } });
      return 1;
    },
  },
  {
    name: 'tenant sync burst',
    everyMs: 20_000,
    guards: [DEMO_QUEUES.tenantSync],
    add: async ({ queues }) => {
      const jobs = Array.from({ length: 8 }, () => ({
        name: 'sync acme',
        data: tenantSyncData('acme'),
        opts: { group: { id: 'acme' } },
      }));
      await queues[DEMO_QUEUES.tenantSync].addBulk(jobs);
      return jobs.length;
    },
  },
];

/** Waiting, delayed and blocked parents beyond this and a feed pauses: no worker is keeping up. */
export const BACKLOG_CAP = 200;
