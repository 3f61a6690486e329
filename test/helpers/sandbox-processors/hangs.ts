import { threadId } from 'node:worker_threads';

/**
 * Fixture: publishes its pid as the job's progress, then runs until `data.ms` passes (never,
 * without it), so a test can kill the child or watch it overlap with others.
 */
export default async function hangs(job: {
  data: { ms?: number };
  updateProgress(progress: object): Promise<void>;
}) {
  const startedAt = Date.now();
  await job.updateProgress({ pid: process.pid, threadId, startedAt });
  await new Promise((resolve) => {
    if (job.data.ms !== undefined) setTimeout(resolve, job.data.ms);
    // Forever: a timer keeps the event loop busy, as a processor waiting on real work would.
    else setInterval(() => undefined, 1_000);
  });
  return { pid: process.pid, threadId, startedAt, endedAt: Date.now() };
}
