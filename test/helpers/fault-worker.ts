/**
 * Worker processes for the fault-injection suite (test/faults), OxMQ's or
 * bullmq 6.7.0's (fault-worker.entry.ts) on the same queue: each completes every job
 * after a short random work time and reports every start, completion and stalled recovery, so a
 * test can count, across processes that it kills, how often each job ran and why.
 */
import { spawnBundledChild, type BundledChild, type ChildMessage } from './bundled-child';
import type { KillAt } from './fault-worker-kill-at';

export type { ChildMessage } from './bundled-child';
export type { KillAt, KillReport } from './fault-worker-kill-at';

export interface FaultWorkerConfig {
  /** Whose Worker runs in the process: OxMQ's (the default) or bullmq's. */
  library?: 'oxmq' | 'bullmq';
  queueName: string;
  port: number;
  /** Also names the worker's blocking connection (`<prefix>:<base64 queue>:w:<workerName>`). */
  workerName: string;
  concurrency: number;
  /** Work time of a job, uniformly random in [workMinMs, workMaxMs]. */
  workMinMs: number;
  workMaxMs: number;
  lockDuration: number;
  stalledInterval: number;
  /** High in these tests: a job that stalls over and over must still run, not fail. */
  maxStalledCount: number;
  /** Seconds an idle worker blocks before fetching again. */
  drainDelay: number;
  runRetryDelay: number;
  /** Opt-in: SIGKILL the process at a chosen script call (fault-worker-kill-at.ts). */
  killAt?: KillAt;
}

/** What a job's data may ask of the worker that runs it. */
export interface JobInstructions {
  /** Busy-loop this long, in the worker named `blockIn` only (others work as usual). */
  blockMs?: number;
  blockIn?: string;
  /** Work this long instead of the random work time. */
  workMs?: number;
  /** Throw while the job's attemptsMade is below this (a retry scenario's failing attempts). */
  failAttempts?: number;
}

export interface FaultWorker extends BundledChild {
  readonly workerName: string;
  /** SIGKILL, as in a crash; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM: the worker closes gracefully (waits for its jobs) and exits. */
  stop(): Promise<void>;
  /** Messages of one event name, oldest first. */
  reports(event: string): ChildMessage[];
}

export async function startFaultWorker(config: FaultWorkerConfig): Promise<FaultWorker> {
  const child = await spawnBundledChild('fault-worker.entry.ts', 'fault worker', config);
  await child.waitForMessage((message) => message.event === 'ready', 20_000);
  const signal = async (name: NodeJS.Signals) => {
    if (child.running()) child.process.kill(name);
    await child.exited;
  };
  return Object.assign(child, {
    workerName: config.workerName,
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
    reports: (event: string) => child.messages.filter((message) => message.event === event),
  });
}
