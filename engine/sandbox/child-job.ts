/**
 * The job a sandboxed processor receives: the job's fields, and the few methods that make sense
 * without a connection of its own. Each method is sent to the parent, which applies it on the
 * real Job and answers once Redis has it, so `await job.updateProgress(50)` means it is written.
 */
import type { SandboxJobFields, SandboxJobMethod } from './protocol';

/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic default */
export interface SandboxedJob<DataType = any> extends Omit<SandboxJobFields, 'data'> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  data: DataType;
  updateProgress(progress: number | object): Promise<void>;
  /** Appends a log line; resolves with how many lines the job keeps. */
  log(line: string): Promise<number>;
  updateData(data: DataType): Promise<void>;
}

/** Sends one method call to the parent; resolves with its answer. */
export type CallParent = (method: SandboxJobMethod, arg: unknown) => Promise<unknown>;

export function createSandboxedJob(fields: SandboxJobFields, call: CallParent): SandboxedJob {
  const job: SandboxedJob = {
    ...fields,
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
  };
  return job;
}
