import type { ConnectionOptions } from './connection';
import type { JobsOptions } from './job-options';

export interface QueueBaseOptions {
  /** ioredis options, a redis:// URL or an ioredis instance (shared, never closed by us). */
  connection: ConnectionOptions;
  /** Key prefix; default "bull" (bullmq's). */
  prefix?: string;
}

export interface QueueOptions extends QueueBaseOptions {
  defaultJobOptions?: JobsOptions;
  streams?: { events?: { maxLen?: number } };
  /** Do not write meta.version / meta.opts.maxLenEvents on startup. */
  skipMetasUpdate?: boolean;
}
