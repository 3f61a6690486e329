/**
 * The workers of a runner: one engine Worker per loaded processor module, in-process or
 * sandboxed, with their state for /health and their failures in the log.
 */
import {
  BatchWorker,
  Worker,
  type BatchProcessor,
  type ConnectionOptions,
  type Job,
  type WorkerOptions,
} from 'oxmq';
import type { Logger } from './logger';
import type { LoadedProcessor } from './processor-module';
import type { SandboxMode } from './processor-options';
import { moduleWorkerName } from './worker-name';

export type HostedState = 'starting' | 'running' | 'closing' | 'closed';

export interface HostedProcessor {
  readonly file: string;
  readonly queue: string;
  readonly prefix: string;
  readonly concurrency: number;
  readonly sandbox: SandboxMode;
  state: HostedState;
  readonly worker: Worker | BatchWorker;
}

export interface CloseReport {
  readonly queue: string;
  readonly prefix: string;
  readonly completedInTime: number;
  readonly returnedToWait: string[];
}

export interface HostSettings {
  /** Options (each worker opens its own connections) or a shared Cluster the runner closes. */
  readonly connection: ConnectionOptions;
  readonly prefix: string;
  /** Each worker wraps its queue's name in a hash tag (docs/scaling.md). */
  readonly clusterHashTags: boolean;
}

/** Starts one worker per processor; `start` throws what the Worker constructor throws. */
export class ProcessorHost {
  readonly hosted: HostedProcessor[] = [];
  private readonly started: Promise<void>[] = [];

  constructor(
    private readonly settings: HostSettings,
    private readonly logger: Logger,
  ) {}

  /** The hosted processor already serving `queue` under `prefix`, if any. */
  find(prefix: string, queue: string): HostedProcessor | undefined {
    return this.hosted.find((entry) => entry.prefix === prefix && entry.queue === queue);
  }

  prefixOf(processor: LoadedProcessor): string {
    return processor.options.prefix ?? this.settings.prefix;
  }

  start(processor: LoadedProcessor): HostedProcessor {
    // prefix and batch are not Worker options: the prefix is resolved below, batch picks the class.
    const {
      sandbox = false,
      prefix: _prefix,
      batch: _batch,
      ...workerSettings
    } = processor.options;
    const prefix = this.prefixOf(processor);
    const worker = createWorker(processor, {
      ...workerSettings,
      name: workerSettings.name ?? moduleWorkerName(processor.file),
      connection: this.settings.connection,
      prefix,
      clusterHashTags: this.settings.clusterHashTags,
    });
    const hosted: HostedProcessor = {
      file: processor.file,
      queue: processor.queue,
      prefix,
      concurrency: worker.concurrency,
      sandbox,
      state: 'starting',
      worker,
    };
    this.watch(hosted);
    this.hosted.push(hosted);
    return hosted;
  }

  private watch(hosted: HostedProcessor): void {
    const context = { queue: hosted.queue, prefix: hosted.prefix, file: hosted.file };
    const log = this.logger.child(context);
    this.started.push(
      new Promise((resolve) =>
        hosted.worker.once('ready', () => {
          if (hosted.state === 'starting') hosted.state = 'running';
          log.info({ concurrency: hosted.concurrency, sandbox: hosted.sandbox }, 'worker running');
          resolve();
        }),
      ),
    );
    hosted.worker.on('failed', (job: Job | undefined, error: Error) => {
      log.warn(
        { jobId: job?.id, attemptsMade: job?.attemptsMade, reason: error.message },
        'job failed',
      );
    });
    hosted.worker.on('completed', (job: Job) => log.debug({ jobId: job.id }, 'job completed'));
    hosted.worker.on('error', (error: unknown) => log.error({ err: error }, 'worker error'));
  }

  /** Resolves once every worker runs (or stops waiting when `stop` resolves first). */
  async allRunning(stop: Promise<unknown>): Promise<void> {
    await Promise.race([Promise.all(this.started), stop]);
  }

  isEveryWorkerRunning(): boolean {
    return this.hosted.every((entry) => entry.state === 'running' && entry.worker.isRunning());
  }

  /**
   * Closes every worker with the deadline: running jobs get `timeoutMs` to finish, the rest go
   * back to wait. Resolves with one report per worker.
   */
  async close(timeoutMs: number): Promise<CloseReport[]> {
    return Promise.all(
      this.hosted.map(async (entry) => {
        entry.state = 'closing';
        const report = await entry.worker.closeGracefully(timeoutMs);
        entry.state = 'closed';
        return {
          queue: entry.queue,
          prefix: entry.prefix,
          completedInTime: report.completedInTime,
          returnedToWait: report.returnedToWait,
        };
      }),
    );
  }

  /**
   * A second stop request: cut every worker's deadline to now, so running jobs go back to
   * wait at once (closeGracefully called again with 0 shortens the pending one).
   */
  hurry(): void {
    for (const entry of this.hosted) {
      entry.worker.closeGracefully(0).catch(() => undefined);
    }
  }
}

/** The engine worker a module asks for: a BatchWorker, an in-process or a sandboxed Worker. */
function createWorker(processor: LoadedProcessor, options: WorkerOptions): Worker | BatchWorker {
  const { sandbox = false, batch } = processor.options;
  if (batch) {
    // In batch mode the module's default export takes the jobs array (see ProcessorOptions).
    return new BatchWorker(processor.queue, processor.process as unknown as BatchProcessor, {
      ...options,
      batchSize: batch.size,
      maxBatchBytes: batch.maxBytes,
    });
  }
  if (sandbox === false) return new Worker(processor.queue, processor.process, options);
  // A sandboxed worker gets the module's path: the engine loads it again in each child and
  // uses only its default export, so a crash there fails the job, not this process.
  return new Worker(processor.queue, processor.file, {
    ...options,
    useWorkerThreads: sandbox === 'thread',
  });
}
