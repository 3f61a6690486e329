/**
 * What a Worker's processor argument becomes: the function itself (runs in this process), or,
 * for the path / file: URL of a module, a function that hands each job to a sandbox child
 * (engine/sandbox/). Resolved before the worker opens any connection, so a bad argument throws
 * with nothing to clean up.
 */
import { ValidationError } from '../errors';
import { resolveProcessorFile, SandboxedProcessor } from '../sandbox/sandboxed-processor';
import type { WorkerOptions } from './options';
import type { Processor } from './processor';

export interface ProcessorSource<DataType, ReturnType, NameType extends string> {
  /** The function a slot calls; `workerSignal` (close) kills a sandbox child. */
  processor(workerSignal: AbortSignal): Processor<DataType, ReturnType, NameType>;
  /**
   * bullmq's rule: a per-job AbortSignal (cancelJob) only for a processor that declares one;
   * sandboxed processors always get theirs.
   */
  takesSignal: boolean;
  /** Set for a sandboxed processor: the children, which closing must stop. */
  sandbox?: SandboxedProcessor;
}

/** Undefined for null / undefined: manual processing. */
export function processorSource<DataType, ReturnType, NameType extends string>(
  processor: Processor<DataType, ReturnType, NameType> | string | URL | null | undefined,
  opts: WorkerOptions,
  onError: (error: unknown) => void,
): ProcessorSource<DataType, ReturnType, NameType> | undefined {
  if (typeof processor === 'function') {
    return { processor: () => processor, takesSignal: processor.length >= 3 };
  }
  if (typeof processor === 'string' || processor instanceof URL) {
    const sandbox = new SandboxedProcessor({
      file: resolveProcessorFile(processor),
      useWorkerThreads: opts.useWorkerThreads === true,
      startOptions: {
        forkOptions: opts.workerForkOptions,
        threadOptions: opts.workerThreadsOptions,
      },
      onError,
    });
    return {
      // The worker's signal kills the child on close; the job's own is passed into the child.
      processor: (workerSignal) => (job, token, signal) =>
        sandbox.process(job, workerSignal, signal, token) as Promise<ReturnType>,
      takesSignal: true,
      sandbox,
    };
  }
  if (processor !== null && processor !== undefined) {
    throw new ValidationError(
      'Worker processor must be a function, the path or file: URL of a processor module, or ' +
        'null for manual processing',
    );
  }
  return undefined;
}
