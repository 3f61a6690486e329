/** Fixture: exits its sandbox with `data.exitCode` when set; otherwise reports its pid. */
import { threadId } from 'node:worker_threads';

export default async function exits(job: { data: { exitCode?: number } }) {
  if (job.data.exitCode !== undefined) process.exit(job.data.exitCode);
  return { pid: process.pid, threadId };
}
