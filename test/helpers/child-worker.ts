/**
 * A worker that really dies: OxMQ's or bullmq's Worker runs in a child process, takes jobs and
 * never finishes them, and the test SIGKILLs it while it holds one, so its lock simply expires the
 * way it does when a machine goes away (no close(), no lock release, no last renewal).
 *
 * The child (child-worker.entry.ts) reports `ready`, `active` (with the job id) for every job it
 * starts, `failed` (job id and reason) for every job it fails, and `error`.
 */
import { spawnBundledChild, type ChildMessage } from './bundled-child';

export type { ChildMessage } from './bundled-child';

export type WorkerSide = 'oxmq' | 'bullmq';

/** What the child reads from argv[2] (as JSON). Unset options keep the library's defaults. */
export interface ChildWorkerConfig {
  /** oxmq-batch: an OxMQ BatchWorker (reports `batch` with its job ids, then `active` per job). */
  side: WorkerSide | 'oxmq-batch';
  queueName: string;
  port: number;
  workerName?: string;
  lockDuration?: number;
  stalledInterval?: number;
  skipStalledCheck?: boolean;
  /** oxmq-batch only. */
  batchSize?: number;
  /** OxMQ only. */
  heartbeatInterval?: number;
  /**
   * The processor takes the job's AbortSignal and fails with `cancelled: <reason>` when it fires
   * (it still never finishes otherwise).
   */
  honourCancel?: boolean;
}

export interface ChildWorker {
  readonly pid: number;
  /** Resolves with the first message (already received or future) that matches. */
  waitForMessage(
    match: (message: ChildMessage) => boolean,
    timeoutMs?: number,
  ): Promise<ChildMessage>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
}

/** Starts a child worker of `config.side` on the queue; it takes every job it can get. */
export async function startChildWorker(config: ChildWorkerConfig): Promise<ChildWorker> {
  const child = await spawnBundledChild(
    'child-worker.entry.ts',
    `child ${config.side} worker`,
    config,
  );
  return {
    pid: child.pid,
    waitForMessage: child.waitForMessage,
    async kill() {
      if (child.running()) child.process.kill('SIGKILL');
      await child.exited;
    },
  };
}
