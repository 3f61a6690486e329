/**
 * The messages between a Worker and its sandbox children (child processes and worker threads
 * alike). Every message is plain JSON, so the same protocol runs over process IPC and over a
 * worker thread's port.
 *
 * A child starts, loads the processor module and says `ready` (or `loadFailed`, then exits).
 * The parent sends one `run` at a time; while it runs, the child may `call` a job method, which
 * the parent applies on the real Job and answers with a `reply`, and the parent may `cancel` the
 * run (the processor's AbortSignal fires; the processor decides what to do). The run ends with
 * `completed` or `failed`. A child that crashes says `crashed` (when it still can) and exits.
 */
import type { JobsOptions } from '../job/options';
import type { ParentLinkFields } from '../backend/queue-backend';

/** The job as the child sees it: fields only, no connection. */
export interface SandboxJobFields {
  id: string;
  name: string;
  data: unknown;
  opts: JobsOptions;
  attemptsMade: number;
  attemptsStarted: number;
  stalledCounter: number;
  timestamp: number;
  processedOn?: number;
  delay: number;
  priority: number;
  progress: number | object;
  /** The job's return value of an earlier attempt, if any (bullmq's `returnValue`). */
  returnValue?: unknown;
  queueName: string;
  queueQualifiedName: string;
  prefix: string;
  parentKey?: string;
  parent?: ParentLinkFields;
  repeatJobKey?: string;
}

/** Job methods the child may call; the parent runs them on the real Job. */
export type SandboxJobMethod =
  | 'updateProgress'
  | 'log'
  | 'updateData'
  | 'moveToDelayed'
  | 'moveToWait'
  | 'moveToWaitingChildren'
  | 'getChildrenValues'
  | 'getIgnoredChildrenFailures'
  | 'getFailedChildrenValues'
  | 'getDependenciesCount';

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  /** A DelayedError's carried move (due time, ms), so the worker can make it. */
  until?: number;
}

export type ParentToChild =
  /** `token` is the job's lock token, the processor's second argument as in-process. */
  | { type: 'run'; job: SandboxJobFields; token: string }
  | { type: 'cancel'; reason?: string }
  | { type: 'reply'; callId: number; ok: true; value: unknown }
  | { type: 'reply'; callId: number; ok: false; error: SerializedError };

export type ChildToParent =
  | { type: 'ready' }
  | { type: 'loadFailed'; error: SerializedError }
  | { type: 'call'; callId: number; method: SandboxJobMethod; args: unknown[] }
  /** `value` is the return value as JSON text ("null" for undefined), as the job hash keeps it. */
  | { type: 'completed'; value: string }
  | { type: 'failed'; error: SerializedError }
  | { type: 'crashed'; error: SerializedError };

export function serializeError(thrown: unknown): SerializedError {
  if (thrown instanceof Error) {
    const serialized: SerializedError = {
      name: thrown.name,
      message: thrown.message,
      stack: thrown.stack,
    };
    const until = (thrown as { until?: unknown }).until;
    if (typeof until === 'number') serialized.until = until;
    return serialized;
  }
  return { name: 'Error', message: String(thrown) };
}

/** An Error with the child's name, message and stack (the name decides retries). */
export function deserializeError(serialized: SerializedError): Error {
  const error = new Error(serialized.message);
  error.name = serialized.name;
  error.stack = serialized.stack ?? `${serialized.name}: ${serialized.message}`;
  if (serialized.until !== undefined) Object.assign(error, { until: serialized.until });
  return error;
}
