/**
 * The job a sandboxed processor receives: the job's fields, and the Job methods that make sense
 * without a connection of its own. Each method is sent to the parent, which applies it on the
 * real Job and answers once Redis has it, so `await job.updateProgress(50)` means it is written.
 */
import type { DependencyCounts, DependencyCountsOpts } from '../job/dependencies';
import type { SandboxJobFields, SandboxJobMethod } from './protocol';

/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic defaults */
export interface SandboxedJob<DataType = any, ReturnType = any> extends Omit<
  SandboxJobFields,
  'data' | 'returnValue'
> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  data: DataType;
  returnValue?: ReturnType;
  updateProgress(progress: number | object): Promise<void>;
  /** Appends a log line; resolves with how many lines the job keeps. */
  log(line: string): Promise<number>;
  updateData(data: DataType): Promise<void>;
  /** Then throw DelayedError, as in-process. */
  moveToDelayed(timestamp: number, token?: string): Promise<void>;
  /** Then throw WaitingError, as in-process. */
  moveToWait(token?: string): Promise<void>;
  /** Resolves true when the job now waits for children (then throw WaitingChildrenError). */
  moveToWaitingChildren(
    token?: string,
    opts?: { child?: { id: string; queue: string } },
  ): Promise<boolean>;
  getChildrenValues<ChildType = unknown>(): Promise<Record<string, ChildType>>;
  getIgnoredChildrenFailures(): Promise<Record<string, string>>;
  getFailedChildrenValues(): Promise<Record<string, string>>;
  getDependenciesCount(opts?: DependencyCountsOpts): Promise<DependencyCounts>;
  /**
   * While the job is processed, the AbortSignal the processor gets as its third argument (the
   * parent's worker.cancelJob / queue.cancelJob abort it); undefined once it returned.
   */
  signal?: AbortSignal;
}

/** Sends one method call to the parent; resolves with its answer. */
export type CallParent = (method: SandboxJobMethod, ...args: unknown[]) => Promise<unknown>;

export function createSandboxedJob(
  fields: SandboxJobFields,
  call: CallParent,
  signal?: AbortSignal,
): SandboxedJob {
  const job: SandboxedJob = {
    ...fields,
    signal,
    async updateProgress(progress) {
      await call('updateProgress', progress);
      job.progress = progress;
    },
    async log(line) {
      return Number(await call('log', String(line)));
    },
    async updateData(data) {
      await call('updateData', data);
      job.data = data;
    },
    async moveToDelayed(timestamp, token) {
      await call('moveToDelayed', timestamp, token);
    },
    async moveToWait(token) {
      await call('moveToWait', token);
    },
    async moveToWaitingChildren(token, opts) {
      return (await call('moveToWaitingChildren', token, opts)) === true;
    },
    getChildrenValues: <ChildType>() =>
      call('getChildrenValues') as Promise<Record<string, ChildType>>,
    getIgnoredChildrenFailures: () =>
      call('getIgnoredChildrenFailures') as Promise<Record<string, string>>,
    getFailedChildrenValues: () =>
      call('getFailedChildrenValues') as Promise<Record<string, string>>,
    getDependenciesCount: (opts) => call('getDependenciesCount', opts) as Promise<DependencyCounts>,
  };
  return job;
}
