/**
 * Entry of a sandbox child, as a forked process (processor file in argv[2]) or as a worker
 * thread (processor file in workerData.file). Loads the processor module once, then runs the
 * jobs the parent sends, one at a time. See protocol.ts for the messages.
 *
 * Runs under tsx (no top-level await: .ts files are CommonJS in this package).
 */
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createSandboxedJob, type SandboxedJob } from './child-job';
import { SandboxLoadError } from './errors';
import {
  serializeError,
  type ChildToParent,
  type ParentToChild,
  type SandboxJobFields,
  type SandboxJobMethod,
} from './protocol';

/** As in-process: the job, its lock token, and a signal that fires when the job is cancelled. */
type SandboxedProcessorFn = (job: SandboxedJob, token: string, signal: AbortSignal) => unknown;

interface Channel {
  /** Resolves once the message is handed to the transport (so exiting next does not lose it). */
  send(message: ChildToParent): Promise<void>;
  onMessage(listener: (message: ParentToChild) => void): void;
}

function openChannel(): Channel {
  if (!isMainThread && parentPort) {
    const port = parentPort;
    return {
      send: async (message) => port.postMessage(message),
      onMessage: (listener) => port.on('message', listener),
    };
  }
  const send = process.send?.bind(process);
  if (!send) throw new Error('OxMQ sandbox child started without an IPC channel');
  // The parent is gone (even killed with SIGKILL): a child process must not outlive it.
  process.on('disconnect', () => process.exit(0));
  return {
    send: (message) =>
      new Promise((resolve) => {
        send(message, undefined, undefined, () => resolve());
      }),
    onMessage: (listener) => process.on('message', listener),
  };
}

function processorFile(): string {
  const file: unknown = isMainThread ? process.argv[2] : (workerData as { file?: unknown })?.file;
  if (typeof file !== 'string') throw new Error('OxMQ sandbox child started without a file');
  return file;
}

/**
 * The function default export, whichever way the module was written: ESM `export default`,
 * CommonJS `module.exports = fn`, or TypeScript compiled to CommonJS (default under default).
 */
function defaultFunction(namespace: unknown): SandboxedProcessorFn | undefined {
  let candidate: unknown = namespace;
  for (let depth = 0; depth < 3; depth++) {
    if (typeof candidate === 'function') return candidate as SandboxedProcessorFn;
    if (typeof candidate !== 'object' || candidate === null || !('default' in candidate)) break;
    candidate = (candidate as { default: unknown }).default;
  }
  return undefined;
}

async function loadProcessor(file: string): Promise<SandboxedProcessorFn> {
  let namespace: unknown;
  try {
    namespace = await import(pathToFileURL(file).href);
  } catch (error) {
    throw new SandboxLoadError(
      `Sandboxed processor ${file} could not be loaded: ${serializeError(error).message}`,
    );
  }
  const processor = defaultFunction(namespace);
  if (!processor) {
    // bullmq's wording leads, so code and alerts that match on it keep working.
    throw new SandboxLoadError(
      `No function is exported in processor file ${file} (export default async (job) => ...)`,
    );
  }
  return processor;
}

/** The completed reply: the value as JSON text, or an unrecoverable failure when it has none. */
function completedReply(value: unknown): ChildToParent {
  try {
    return { type: 'completed', value: JSON.stringify(value) ?? 'null' };
  } catch (error) {
    return {
      type: 'failed',
      error: {
        name: 'UnrecoverableError',
        message: `Return value is not JSON-serialisable: ${serializeError(error).message}`,
      },
    };
  }
}

function main(): void {
  const channel = openChannel();
  const pendingCalls = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  let nextCallId = 0;
  let processor: SandboxedProcessorFn | undefined;

  let crashing = false;
  const crash = (error: unknown) => {
    if (crashing) return;
    crashing = true;
    void channel
      .send({ type: 'crashed', error: serializeError(error) })
      .finally(() => process.exit(1));
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);

  const call = (method: SandboxJobMethod, ...args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const callId = nextCallId++;
      pendingCalls.set(callId, { resolve, reject });
      void channel.send({ type: 'call', callId, method, args });
    });

  // The running job's cancellation; one job runs at a time.
  let cancellation: AbortController | undefined;

  const run = async (fields: SandboxJobFields, token: string) => {
    let reply: ChildToParent;
    cancellation = new AbortController();
    let job: SandboxedJob | undefined;
    try {
      if (!processor) throw new Error('OxMQ sandbox child got a job before it was ready');
      job = createSandboxedJob(fields, call, cancellation.signal);
      reply = completedReply(await processor(job, token, cancellation.signal));
    } catch (error) {
      reply = { type: 'failed', error: serializeError(error) };
    } finally {
      cancellation = undefined;
      // As in-process: job.signal is there only while the job is processed.
      if (job) job.signal = undefined;
    }
    await channel.send(reply);
  };

  channel.onMessage((message) => {
    if (message.type === 'run') {
      void run(message.job, message.token);
    } else if (message.type === 'cancel') {
      cancellation?.abort(message.reason);
    } else if (message.type === 'reply') {
      const pending = pendingCalls.get(message.callId);
      pendingCalls.delete(message.callId);
      if (!pending) return;
      if (message.ok) pending.resolve(message.value);
      else {
        const error = new Error(message.error.message);
        error.name = message.error.name;
        pending.reject(error);
      }
    }
  });

  loadProcessor(processorFile()).then(
    (loaded) => {
      processor = loaded;
      void channel.send({ type: 'ready' });
    },
    (error: unknown) => {
      // Nothing to run: report why and leave; the parent fails the job with this reason.
      void channel
        .send({ type: 'loadFailed', error: serializeError(error) })
        .finally(() => process.exit(0));
    },
  );
}

main();
