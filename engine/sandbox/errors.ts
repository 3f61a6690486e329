import { OxmqError } from '../errors';

/**
 * A sandbox child died while it ran a job (process.exit, uncaught exception, unhandled
 * rejection, signal, out of memory). The job fails with this; the normal retry rules apply.
 */
export class SandboxCrashError extends OxmqError {
  readonly code = 'SANDBOX_CRASHED';
}

/** The processor module could not be loaded in the child, or has no function default export. */
export class SandboxLoadError extends OxmqError {
  readonly code = 'SANDBOX_LOAD_FAILED';
}

/**
 * The worker stopped a sandboxed job on purpose (close(true), or closeGracefully's deadline):
 * the worker records no outcome for it. Internal; never written to a job.
 */
export class SandboxAbortedError extends OxmqError {
  readonly code = 'SANDBOX_ABORTED';
  constructor() {
    super('Sandboxed job stopped by the worker closing');
  }
}
