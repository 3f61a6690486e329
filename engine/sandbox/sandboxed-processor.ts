/**
 * A processor that runs each job in a sandbox child (see sandbox-pool.ts) instead of this
 * process: the Worker calls it like any processor function, so fetching, locks, retries and
 * events stay the Worker's business. A child's crash fails only the job it ran.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ValidationError } from '../errors';
import type { Job } from '../job';
import { SandboxAbortedError, SandboxLoadError, type SandboxCrashError } from './errors';
import type { SandboxJobFields, SandboxJobMethod } from './protocol';
import { sandboxRuntime } from './runtime';
import { SandboxPool } from './sandbox-pool';

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
    queueName: job.queueName,
    prefix: job.prefix,
    parentKey: job.parentKey,
    parent: job.parent,
    repeatJobKey: job.repeatJobKey,
  };
}

/** Runs a method the child called on the real Job (so it reaches Redis and local events). */
async function applyJobMethod(job: Job, method: SandboxJobMethod, arg: unknown): Promise<unknown> {
  switch (method) {
    case 'updateProgress':
      if (typeof arg !== 'number' && (typeof arg !== 'object' || arg === null)) {
        throw new ValidationError('progress must be a number or an object');
      }
      return job.updateProgress(arg);
    case 'log':
      return job.log(String(arg));
    case 'updateData':
      return job.updateData(arg);
  }
}

export interface SandboxedProcessorOptions {
  file: string;
  useWorkerThreads: boolean;
  /** Receives what is not any one job's failure: the first load failure, idle children dying. */
  onError: (error: unknown) => void;
}

export class SandboxedProcessor {
  private readonly pool: SandboxPool;
  /** A module that does not load fails every job; the worker's 'error' hears of it once. */
  private loadErrorReported = false;

  constructor(private readonly options: SandboxedProcessorOptions) {
    // Fails at construction (ValidationError) when tsx or the child entry cannot be found.
    sandboxRuntime();
    this.pool = new SandboxPool(
      options.file,
      options.useWorkerThreads,
      (error: SandboxCrashError) => options.onError(error),
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
   * SandboxAbortedError when `signal` (the worker closing) stopped it (the child is killed).
   * `cancel` (worker.cancelJob) is passed into the child: the processor's own signal aborts and
   * the processor decides, as an in-process one does.
   */
  async process(
    job: Job,
    signal: AbortSignal,
    cancel?: AbortSignal,
    token?: string,
  ): Promise<unknown> {
    if (signal.aborted) throw new SandboxAbortedError();
    let aborted = false;
    let child: Awaited<ReturnType<SandboxPool['acquire']>> | undefined;
    const onAbort = () => {
      aborted = true;
      void child?.kill();
    };
    const onCancel = () => child?.cancel(cancelReason(cancel));
    signal.addEventListener('abort', onAbort, { once: true });
    cancel?.addEventListener('abort', onCancel, { once: true });
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
      const running = child.run(
        jobFields(job),
        (method, arg) => applyJobMethod(job, method, arg),
        token,
      );
      // Cancelled while the child was being acquired: tell it now that it runs the job.
      if (cancel?.aborted) onCancel();
      const outcome = await running;
      if (aborted) throw new SandboxAbortedError();
      if (outcome.kind === 'crashed') throw outcome.error;
      this.pool.release(child);
      if (outcome.kind === 'failed') throw outcome.error;
      return JSON.parse(outcome.value) as unknown;
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancel?.removeEventListener('abort', onCancel);
    }
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

/** The reason a child can receive: text (process IPC carries JSON; an abort's default reason is
 * a DOMException, which it cannot). */
function cancelReason(signal: AbortSignal | undefined): string | undefined {
  const reason: unknown = signal?.reason;
  return typeof reason === 'string' ? reason : undefined;
}
