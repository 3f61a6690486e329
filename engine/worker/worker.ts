import { sandboxService } from './background-services';
import type { Processor } from './processor';
import { processorSource } from './processor-source';
import { SingleJobStrategy, type FetchedJob } from './single-job-strategy';
import { WorkerBase } from './worker-base';
import type { WorkerOptions } from './options';
import { validateWorkerOptions } from './validation';

export type { Processor } from './processor';
export type { GracefulCloseReport } from './graceful-close';
export { workerConnectionName } from './worker-connections';

/**
 * Processes jobs of one queue, one job per slot (engine/worker/single-job-strategy.ts). Local
 * events: ready, active, progress, completed, failed, stalled, drained, error,
 * lockRenewalFailed, closing, closed.
 *
 * The processor is a function (runs in this process) or the path / file: URL of a module whose
 * default export is the processor, run in sandbox children (child processes, or worker threads
 * with `useWorkerThreads`): see engine/sandbox/. Without a processor (null) the worker processes
 * manually: getNextJob, then job.moveToCompleted / moveToFailed.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic defaults */
export class Worker<
  DataType = any,
  ReturnType = any,
  NameType extends string = string,
> extends WorkerBase<DataType, ReturnType, NameType, FetchedJob> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  constructor(
    name: string,
    processor: Processor<DataType, ReturnType, NameType> | string | URL | null | undefined,
    opts: WorkerOptions,
  ) {
    // Everything that can refuse the arguments runs before any connection opens.
    validateWorkerOptions(opts, new.target.extraOptionKeys);
    // A sandbox reports crashes through the worker, which exists only after super().
    const report: { to?: (error: unknown) => void } = {};
    const source = processorSource(processor, opts, (error) => report.to?.(error));
    super(name, opts);
    report.to = (error) => this.emitError(error);
    if (!source) return;
    // Registered last, so closing stops the children first.
    if (source.sandbox) {
      const sandbox = source.sandbox;
      this.services.add(sandboxService(sandbox));
      this.forceStop = (jobId) => sandbox.forceStop(jobId);
    }
    const strategy = new SingleJobStrategy(
      this.slotContext,
      this.outcomes,
      source.processor(this.abort.signal),
      source.takesSignal,
    );
    this.useStrategy(strategy, opts.autorun !== false);
  }
}
