/**
 * Fixture: a sandboxed processor that uses the job proxy (progress, log, updateData when
 * `data.steps` is set) and returns where it ran and what it saw of the job.
 */
import { isMainThread, threadId } from 'node:worker_threads';
import type { SandboxedJob } from 'oxmq';

interface ReportData {
  n: number;
  steps?: boolean;
  /** Sends a progress value the parent refuses, to see the refusal come back. */
  badProgress?: boolean;
  sleepMs?: number;
}

export default async function report(job: SandboxedJob<ReportData>) {
  let logCount: number | undefined;
  if (job.data.steps) {
    await job.updateProgress(50);
    logCount = await job.log(`halfway through ${job.id}`);
    await job.updateData({ ...job.data, n: job.data.n + 100 });
    await job.updateProgress({ done: true });
  }
  if (job.data.badProgress) await job.updateProgress('not a number' as unknown as number);
  if (job.data.sleepMs) await new Promise((resolve) => setTimeout(resolve, job.data.sleepMs));
  return {
    pid: process.pid,
    isMainThread,
    threadId,
    id: job.id,
    name: job.name,
    queueName: job.queueName,
    attemptsMade: job.attemptsMade,
    attemptsStarted: job.attemptsStarted,
    n: job.data.n,
    progress: job.progress,
    logCount,
  };
}
