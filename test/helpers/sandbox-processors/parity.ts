/**
 * Fixture: a sandboxed processor for the bullmq-parity cases; `data.action` picks one: the
 * processor's arguments, moving itself to delayed, reading its children, waiting for
 * cancellation, printing to stdout and stderr.
 */
import { DelayedError } from 'oxmq/internals';
import type { SandboxedJob } from 'oxmq';

interface ParityData {
  action: 'arguments' | 'delay' | 'children' | 'cancel' | 'print' | 'env';
  marker?: string;
}

export default async function parity(
  job: SandboxedJob<ParityData>,
  token: string,
  signal: AbortSignal,
) {
  switch (job.data.action) {
    case 'arguments':
      return {
        queueQualifiedName: job.queueQualifiedName,
        token,
        signalAborted: signal.aborted,
      };
    case 'delay':
      if (job.attemptsStarted > 1 || job.delay > 0) return { delayedOnce: true };
      await job.moveToDelayed(Date.now() + 150, token);
      throw new DelayedError();
    case 'children':
      return {
        values: await job.getChildrenValues(),
        counts: await job.getDependenciesCount(),
        ignored: await job.getIgnoredChildrenFailures(),
      };
    case 'cancel':
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      throw new Error(`stopped: ${String(signal.reason)}`);
    case 'env':
      return process.env.OXMQ_PARITY_ENV ?? null;
    case 'print':
      console.log(`stdout ${job.data.marker}`);
      console.error(`stderr ${job.data.marker}`);
      return 'printed';
  }
}
