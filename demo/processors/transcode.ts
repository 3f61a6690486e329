/**
 * `transcode`: slow jobs (8-15 s) in sandboxed child processes, a few at a time. Each step
 * updates the progress bar and adds a log line, so the job page has something to show while the
 * job runs.
 */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../runner';
import { DEMO_QUEUES, SHARED_WORKER_OPTIONS } from '../queues';
import { between, work } from '../timing';

export const queue = DEMO_QUEUES.transcode;

export const options: ProcessorOptions = {
  ...SHARED_WORKER_OPTIONS,
  concurrency: 2,
  sandbox: 'process',
};

export interface TranscodeData {
  videoId: string;
  source: string;
  renditions: string[];
}

/** Each step's share of the job's time, and the progress reached when it ends. */
function plan(renditions: string[]): { line: string; share: number; progress: number }[] {
  const encodeShare = 0.8 / Math.max(1, renditions.length);
  const steps = [
    { line: 'probing input', share: 0.05 },
    ...renditions.map((rendition) => ({ line: `encoding ${rendition}`, share: encodeShare })),
    { line: 'packaging HLS segments', share: 0.1 },
    { line: 'uploading to CDN', share: 0.05 },
  ];
  let done = 0;
  return steps.map((step) => {
    done += step.share;
    return { ...step, progress: Math.min(100, Math.round(done * 100)) };
  });
}

export default async function transcode(job: Job<TranscodeData>) {
  const total = between(8_000, 15_000);
  for (const step of plan(job.data.renditions)) {
    await job.log(step.line);
    await work(total * step.share);
    await job.updateProgress(step.progress);
  }
  await job.log('done');
  return {
    videoId: job.data.videoId,
    playlist: `https://cdn.demo.oxmq/${job.data.videoId}/master.m3u8`,
    renditions: job.data.renditions,
  };
}
