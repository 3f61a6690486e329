/**
 * A processor that runs each job in a sandbox child (see sandbox-pool.ts) instead of this
 * process: the Worker calls it like any processor function, so fetching, locks, retries and
 * events stay the Worker's business. A child's crash fails only the job it ran.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ValidationError } from '../errors';
import type { Job } from '../job/job';
import { SandboxAbortedError, SandboxLoadError, type SandboxCrashError } from './errors';
import type { SandboxJobFields, SandboxJobMethod } from './protocol';
import { sandboxRuntime } from './runtime';
import type { SandboxChild } from './sandbox-child';
import { SandboxPool } from './sandbox-pool';
import type { ChildStartOptions } from './transport';

/**
 * The processor module's absolute path, from a path (relative to the working directory) or a
 * file: URL (object or string). Throws ValidationError when it is no existing file.
 */
export function resolveProcessorFile(processor: string | URL): string {
  let file: string;
  if (processor instanceof URL || processor.startsWith('file:')) {
    const url = processor instanceof URL ? processor : new URL(processor);
    if (url.protocol !== 'file:') {
      throw new ValidationError(`Sandboxed processor must be a file path or file: URL: ${url}`);
    }
    file = fileURLToPath(url);
  } else {
    if (processor.length === 0) throw new ValidationError('Sandboxed processor path is empty');
    file = path.resolve(processor);
  }
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) throw new ValidationError(`Sandboxed processor file not found: ${file}`);
  return file;
}

function jobFields(job: Job): SandboxJobFields {
  return {
    id: job.id,
    name: job.name,
    data: job.data,
    opts: job.opts,
    attemptsMade: job.attemptsMade,
    attemptsStarted: job.attemptsStarted,
    stalledCounter: job.stalledCounter,
    timestamp: job.timestamp,
    processedOn: job.processedOn,
    delay: job.delay,
    priority: job.priority,
    progress: job.progress,
    returnValue: job.returnvalue ?? undefined,
    queueName: job.queueName,
    queueQualifiedName: job.queueQualifiedName,
    prefix: job.prefix,
    parentKey: job.parentKey,
    parent: job.parent,
    repeatJobKey: job.repeatJobKey,
  };
}

/** A number of ms since the epoch, as moveToDelayed takes; anything else is refused. */
function timestampArg(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ValidationError('moveToDelayed needs a timestamp in ms');
  }
  return value;
}

/** The child's token, or the running job's own when the processor passed none. */
function tokenArg(value: unknown, job: Job): string | undefined {
  return typeof value === 'string' && value !== '' ? value : job.token;
}

/**
 * Runs a method the child called on the real Job (so it reaches Redis and local events). The
 * arguments come from another process: each is checked here, as at any boundary.
 */
async function applyJobMethod(
  job: Job,
  method: SandboxJobMethod,
  args: unknown[],
): Promise<unknown> {
  const [first, second] = args;
  switch (method) {
    case 'updateProgress':
      if (typeof first !== 'number' && (typeof first !== 'object' || first === null)) {
        throw new ValidationError('progress must be a number or an object');
      }
      return job.updateProgress(first);
    case 'log':
      return job.log(String(first));
    case 'updateData':
      return job.updateData(first);
    case 'moveToDelayed':
      return job.moveToDelayed(timestampArg(first), tokenArg(second, job));
    case 'moveToWait':
      return job.moveToWait(tokenArg(first, job));
    case 'moveToWaitingChildren':
      return job.moveToWaitingChildren(
        tokenArg(first, job),
        (second ?? {}) as Parameters<Job['moveToWaitingChildren']>[1],
      );
    case 'getChildrenValues':
      return job.getChildrenValues();
    case 'getIgnoredChildrenFailures':
      return job.getIgnoredChildrenFailures();
    case 'getFailedChildrenValues':
      return job.getFailedChildrenValues();
    case 'getDependenciesCount':
      return job.getDependenciesCount((first ?? {}) as Parameters<Job['getDependenciesCount']>[0]);
  }
}

/**
 * A cancellation reason the child can receive: a string, as `cancelJob(id, reason)` gives.
 * Anything else (the default AbortError) stays behind: the child's own abort then makes the
 * same default reason, as in-process.
 */
function reasonText(reason: unknown): string | undefined {
  return typeof reason === 'string' ? reason : undefined;
}

export interface SandboxedProcessorOptions {
  file: string;
  useWorkerThreads: boolean;
  /** Passed on to `fork` / `new Worker` (bullmq's workerForkOptions / workerThreadsOptions). */
  startOptions?: ChildStartOptions;
  /** Receives what is not any one job's failure: the first load failure, idle children dying. */
  onError: (error: unknown) => void;
}

export class SandboxedProcessor {
  private readonly pool: SandboxPool;
  /** A module that does not load fails every job; the worker's 'error' hears of it once. */
  private loadErrorReported = false;
  /** The child running each job, by job id, for forceStop. */
  private readonly childOfJob = new Map<string, SandboxChild>();

  constructor(private readonly options: SandboxedProcessorOptions) {
    // Fails at construction (ValidationError) when the child entry cannot be found, or tsx when
    // the processor needs it.
    sandboxRuntime(options.file);
    this.pool = new SandboxPool(
      options.file,
      options.useWorkerThreads,
      (error: SandboxCrashError) => options.onError(error),
      options.startOptions,
    );
  }

  get file(): string {
    return this.options.file;
  }

  /** Process ids of the live children (this process's id for worker threads). */
  childPids(): number[] {
    return this.pool.pids();
  }

  /**
   * Runs `job` in a child. Resolves with its return value, rejects with its error (name,
   * message and stack from the child), a SandboxCrashError or a SandboxLoadError; rejects with
   * SandboxAbortedError when `signal` stopped it (the child is killed). `cancelSignal` is the
   * job's cancellation: it fires the processor's own AbortSignal in the child, with the reason,
   * and the processor decides what to do, as in-process.
   */
  async process(
    job: Job,
    signal: AbortSignal,
    cancelSignal?: AbortSignal,
    token = job.token,
  ): Promise<unknown> {
    if (signal.aborted) throw new SandboxAbortedError();
    let aborted = false;
    let child: Awaited<ReturnType<SandboxPool['acquire']>> | undefined;
    const onAbort = () => {
      aborted = true;
      void child?.kill();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      try {
        child = await this.pool.acquire();
      } catch (error) {
        if (aborted) throw new SandboxAbortedError();
        if (error instanceof SandboxLoadError) this.reportLoadError(error);
        throw error;
      }
      this.loadErrorReported = false;
      if (aborted) {
        void child.kill();
        throw new SandboxAbortedError();
      }
      const running = child;
      this.childOfJob.set(job.id, running);
      const forwardCancel = () => running.cancel(reasonText(cancelSignal?.reason));
      const outcome = await (async () => {
        const run = running.run(jobFields(job), token ?? '', (method, args) =>
          applyJobMethod(job, method, args),
        );
        if (cancelSignal?.aborted) forwardCancel();
        cancelSignal?.addEventListener('abort', forwardCancel, { once: true });
        try {
          return await run;
        } finally {
          cancelSignal?.removeEventListener('abort', forwardCancel);
          if (this.childOfJob.get(job.id) === running) this.childOfJob.delete(job.id);
        }
      })();
      if (aborted) throw new SandboxAbortedError();
      if (outcome.kind === 'crashed') throw outcome.error;
      this.pool.release(child);
      if (outcome.kind === 'failed') throw outcome.error;
      return JSON.parse(outcome.value) as unknown;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Kills the child running `jobId` (a cancel with force, for a processor that ignores its
   * signal): its run ends as a crash, which the worker records as the cancelled attempt. False
   * when no child runs that job.
   */
  forceStop(jobId: string): boolean {
    const child = this.childOfJob.get(jobId);
    if (!child) return false;
    this.childOfJob.delete(jobId);
    void child.kill();
    return true;
  }

  /** The children of this processor, bullmq's pool view: busy ones and idle ones. */
  poolStats(): { busy: number; idle: number } {
    return this.pool.stats();
  }

  private reportLoadError(error: SandboxLoadError): void {
    if (this.loadErrorReported) return;
    this.loadErrorReported = true;
    this.options.onError(error);
  }

  /** Stops every child (busy ones at once); resolves once all are gone. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
