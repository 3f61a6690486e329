/**
 * The demo's queue names and the worker options every demo processor shares: metrics for the
 * Metrics page, and bounded removal so a demo left running for days keeps Redis small.
 */
export const DEMO_QUEUES = {
  emails: 'emails',
  transcode: 'transcode',
  orders: 'orders',
  payments: 'payments',
  inventory: 'inventory',
  reports: 'reports',
  partnerApi: 'partner-api',
  digest: 'digest',
  tenantSync: 'tenant-sync',
} as const;

export type DemoQueueName = (typeof DEMO_QUEUES)[keyof typeof DEMO_QUEUES];

/** Kept per queue: the newest 500 completed and 1,000 failed jobs. */
export const KEEP_COMPLETED = 500;
export const KEEP_FAILED = 1000;

export const SHARED_WORKER_OPTIONS = {
  metrics: { maxDataPoints: 1440 },
  removeOnComplete: KEEP_COMPLETED,
  removeOnFail: KEEP_FAILED,
};

/** partner-api's limit: the producer sends bursts well above it so the queue visibly waits. */
export const PARTNER_API_LIMIT = { max: 2, duration: 1000 };

/**
 * `tenant-sync`'s tenants, each a tenant group, and the concurrency every group gets (the
 * queue-wide group default the producer sets): one tenant's burst waits in its own line while
 * the other tenants' jobs go on.
 */
export const DEMO_TENANTS = ['acme', 'globex', 'initech', 'umbrella'] as const;
export const TENANT_GROUP_CONCURRENCY = 1;

/** The job scheduler feeding `digest`; its id is stable so a restart upserts, never adds. */
export const DIGEST_SCHEDULER_ID = 'demo-digest';
export const DIGEST_EVERY_MS = 30_000;
