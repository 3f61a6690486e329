/** Fixture: an in-process processor that echoes its data and says which process ran it. */
import type { Job } from 'oxmq';

export const queue = 'alpha';

export default async function echo(job: Job<{ text: string }>) {
  return { queue, echoed: job.data.text, pid: process.pid };
}
