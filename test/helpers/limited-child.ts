/**
 * A worker in a process of its own that finishes its jobs, for limits that must hold across
 * processes (rate limits, global concurrency). child-worker.ts covers workers that die holding a
 * job; this one completes each job after `jobMs`, may carry its own `limiter`, and closes
 * gracefully on close() (SIGTERM), falling back to SIGKILL.
 *
 * The child (limited-child.entry.ts) reports `ready`, `started` (job id, pid), `completed`
 * (job id) and `error`.
 */
import { spawnBundledChild, type ChildMessage } from './bundled-child';
import type { WorkerSide } from './child-worker';

/** What the child reads from argv[2] (as JSON). Unset options keep the library's defaults. */
export interface LimitedChildConfig {
  side: WorkerSide;
  queueName: string;
  port: number;
  concurrency?: number;
  limiter?: { max: number; duration: number };
  drainDelay?: number;
  /** How long each job runs before it completes (ms). */
  jobMs?: number;
}

export interface LimitedChild {
  readonly pid: number;
  /** Every message received so far, oldest first. */
  readonly messages: readonly ChildMessage[];
  waitForMessage(
    match: (message: ChildMessage) => boolean,
    timeoutMs?: number,
  ): Promise<ChildMessage>;
  /** Graceful close (SIGTERM, the child closes its worker); SIGKILL after `timeoutMs`. */
  close(timeoutMs?: number): Promise<void>;
}

/** Starts a worker process of `config.side`; resolves once it reported `ready`. */
export async function startLimitedChild(config: LimitedChildConfig): Promise<LimitedChild> {
  const child = await spawnBundledChild(
    'limited-child.entry.ts',
    `limited ${config.side} worker`,
    config,
  );
  const handle: LimitedChild = {
    pid: child.pid,
    messages: child.messages,
    waitForMessage: child.waitForMessage,
    async close(timeoutMs = 10_000) {
      if (!child.running()) return;
      child.process.kill('SIGTERM');
      const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
      await child.exited;
      clearTimeout(timer);
    },
  };
  await handle.waitForMessage((message) => message.event === 'ready');
  return handle;
}
