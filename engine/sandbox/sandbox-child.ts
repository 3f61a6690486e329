/**
 * The parent's side of one sandbox child: waits for it to load the processor, runs one job at a
 * time on it, answers its job-method calls, and turns its death into a crash reason.
 */
import { SandboxCrashError, SandboxLoadError } from './errors';
import {
  deserializeError,
  serializeError,
  type ChildToParent,
  type SandboxJobFields,
  type SandboxJobMethod,
  type SerializedError,
} from './protocol';
import { startChild, type ChildExit, type ChildTransport } from './transport';

export type RunOutcome =
  | { kind: 'completed'; value: string }
  | { kind: 'failed'; error: Error }
  | { kind: 'crashed'; error: SandboxCrashError };

/** Applies a job method the child called on the real Job; resolves with its result. */
export type ApplyJobMethod = (method: SandboxJobMethod, arg: unknown) => Promise<unknown>;

interface CurrentRun {
  apply: ApplyJobMethod;
  calls: Set<Promise<void>>;
  settle: (outcome: RunOutcome) => void;
}

function describeExit(exit: ChildExit): string {
  if (exit.error) return `crashed: ${exit.error.message}`;
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exited with code ${exit.code ?? 'unknown'}`;
}

/** The reason a job fails when its child dies: the child's own error when it could say it. */
function crashError(reported: SerializedError | undefined, exit: ChildExit): SandboxCrashError {
  if (reported) {
    const error = new SandboxCrashError(`Sandboxed processor crashed: ${reported.message}`);
    if (reported.stack) error.stack = `${error.name}: ${error.message}\n${reported.stack}`;
    return error;
  }
  return new SandboxCrashError(`Sandboxed processor ${describeExit(exit)}`);
}

export class SandboxChild {
  /** Resolves once the processor is loaded; rejects with SandboxLoadError. */
  readonly ready: Promise<void>;
  readonly exited: Promise<ChildExit>;
  private readonly transport: ChildTransport;
  private current?: CurrentRun;
  private crashReport?: SerializedError;
  private alive = true;
  /** Set when the pool or the worker stops this child, so its exit is not a crash to report. */
  stopping = false;

  constructor(
    readonly file: string,
    useWorkerThreads: boolean,
  ) {
    this.transport = startChild(file, useWorkerThreads);
    let markReady!: () => void;
    let failReady!: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    // Observed here so a child that dies before anyone awaits `ready` is no unhandled rejection.
    this.ready.catch(() => undefined);
    this.transport.onMessage((message) => this.receive(message, markReady, failReady));
    this.exited = this.transport.exited.then((exit) => {
      this.alive = false;
      // No-op when the child was ready or already said why it could not load.
      failReady(
        new SandboxLoadError(
          `Sandboxed processor ${file} could not be loaded: the child ${describeExit(exit)}` +
            (this.crashReport ? ` (${this.crashReport.message})` : ''),
        ),
      );
      const run = this.current;
      this.current = undefined;
      run?.settle({ kind: 'crashed', error: crashError(this.crashReport, exit) });
      return exit;
    });
  }

  get pid(): number {
    return this.transport.pid;
  }

  get kind(): 'process' | 'thread' {
    return this.transport.kind;
  }

  isAlive(): boolean {
    return this.alive;
  }

  isBusy(): boolean {
    return this.current !== undefined;
  }

  private receive(
    message: ChildToParent,
    markReady: () => void,
    failReady: (error: Error) => void,
  ): void {
    switch (message.type) {
      case 'ready':
        markReady();
        return;
      case 'loadFailed':
        failReady(new SandboxLoadError(message.error.message));
        return;
      case 'crashed':
        this.crashReport = message.error;
        return;
      case 'call':
        this.answer(message.callId, message.method, message.arg);
        return;
      case 'completed':
        this.finish({ kind: 'completed', value: message.value });
        return;
      case 'failed':
        this.finish({ kind: 'failed', error: deserializeError(message.error) });
        return;
    }
  }

  private answer(callId: number, method: SandboxJobMethod, arg: unknown): void {
    const run = this.current;
    if (!run) return;
    const call = run.apply(method, arg).then(
      (value) => this.transport.send({ type: 'reply', callId, ok: true, value }),
      (error: unknown) =>
        this.transport.send({ type: 'reply', callId, ok: false, error: serializeError(error) }),
    );
    run.calls.add(call);
    void call.finally(() => run.calls.delete(call));
  }

  /** Settles the run once the method calls it made are applied (even ones it did not await). */
  private finish(outcome: RunOutcome): void {
    const run = this.current;
    if (!run) return;
    void Promise.all([...run.calls]).then(() => {
      if (this.current !== run) return;
      this.current = undefined;
      run.settle(outcome);
    });
  }

  /** Runs one job; never rejects: a crash is an outcome. */
  run(job: SandboxJobFields, apply: ApplyJobMethod, token?: string): Promise<RunOutcome> {
    if (this.current) throw new Error('OxMQ sandbox child is already running a job');
    return new Promise<RunOutcome>((settle) => {
      if (!this.alive) {
        settle({
          kind: 'crashed',
          error: crashError(this.crashReport, { code: null, signal: null }),
        });
        return;
      }
      this.current = { apply, calls: new Set(), settle };
      this.transport.send({ type: 'run', job, token });
    });
  }

  /** Aborts the running job's signal in the child (worker.cancelJob); no-op when idle. */
  cancel(reason?: string): void {
    if (this.current && this.alive) this.transport.send({ type: 'cancel', reason });
  }

  /** Stops the child at once; resolves once it is gone. */
  kill(): Promise<ChildExit> {
    this.stopping = true;
    if (this.alive) this.transport.kill();
    return this.exited;
  }

  /** Asks the child to stop, and kills it if it is still there after `graceMs`. */
  async stop(graceMs: number): Promise<ChildExit> {
    this.stopping = true;
    if (!this.alive) return this.exited;
    this.transport.terminate();
    const timer = setTimeout(() => this.transport.kill(), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
