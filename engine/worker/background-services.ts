/**
 * The worker's background services as WorkerService (see worker-services.ts): thin adapters over
 * the classes that do the work, so each keeps its own small API and the worker's lifecycle
 * sees one shape.
 */
import type { LockRenewer } from '../maintenance/lock-renewer';
import type { StalledChecker } from '../maintenance/stalled-checker';
import type { SandboxedProcessor } from '../sandbox/sandboxed-processor';
import type { TimingRecorder } from '../history/timing-recorder';
import type { CompletionBatcher } from './completion-batcher';
import type { WorkerHeartbeat } from './heartbeat';
import type { MarkerWaiter } from './marker-waiter';
import type { WorkerService } from './worker-services';

/** The names the worker registers its services under. */
export const SERVICE = {
  heartbeat: 'heartbeat',
  stalledChecker: 'stalled-checker',
  lockRenewer: 'lock-renewer',
  markerWaiter: 'marker-waiter',
  completions: 'completion-batcher',
  sandbox: 'sandbox',
  timingHistory: 'timing-history',
} as const;

/** Beats now and every interval; stopping deletes the worker's record (gone from consoles). */
export function heartbeatService(
  heartbeat: WorkerHeartbeat,
  lost: () => Promise<void>,
): WorkerService {
  return {
    name: SERVICE.heartbeat,
    start: () => heartbeat.start(),
    // With storage away the delete never returns: the record then expires by its lifetime.
    stop: () => Promise.race([heartbeat.close(), lost()]),
  };
}

/** Writes the timing history every interval; stopping writes what is left. */
export function timingHistoryService(
  recorder: TimingRecorder,
  lost: () => Promise<void>,
): WorkerService {
  return {
    name: SERVICE.timingHistory,
    start: () => recorder.start(),
    // With storage away the write never returns: the counts of the last interval are lost.
    stop: () => Promise.race([recorder.close(), lost()]),
  };
}

export function stalledCheckerService(checker: StalledChecker): WorkerService {
  return {
    name: SERVICE.stalledChecker,
    start: () => checker.start(),
    stop: async () => checker.stop(),
  };
}

export function lockRenewerService(renewer: LockRenewer): WorkerService {
  return {
    name: SERVICE.lockRenewer,
    start: () => renewer.start(),
    stop: async () => renewer.stop(),
  };
}

/** Nothing to start (the slot loop waits when idle); stopping ends a blocking wait at once. */
export function markerWaiterService(waiter: MarkerWaiter): WorkerService {
  return {
    name: SERVICE.markerWaiter,
    start: () => undefined,
    stop: async () => waiter.close(),
  };
}

/** Completions waiting for the next event-loop turn are sent before the connection goes. */
export function completionsService(completions: CompletionBatcher): WorkerService {
  return {
    name: SERVICE.completions,
    start: () => undefined,
    stop: async () => completions.flushNow(),
  };
}

/** Children start with the first job; stopping ends them (busy ones ran a job given up). */
export function sandboxService(sandbox: SandboxedProcessor): WorkerService {
  return {
    name: SERVICE.sandbox,
    start: () => undefined,
    stop: () => sandbox.close(),
  };
}
