/**
 * Starts one sandbox child, as a child process (fork) or a worker thread, behind one small
 * interface: send a message, receive messages, learn once how it ended, stop it.
 */
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { Worker as ThreadWorker, type WorkerOptions as ThreadOptions } from 'node:worker_threads';
import type { ChildToParent, ParentToChild } from './protocol';
import { childExecArgv, sandboxRuntime } from './runtime';

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** An error the runtime reported for the child (a worker thread's uncaught error, OOM). */
  error?: Error;
}

export interface ChildTransport {
  /** The child process id, or this process's id for a worker thread. */
  readonly pid: number;
  readonly kind: 'process' | 'thread';
  send(message: ParentToChild): void;
  onMessage(listener: (message: ChildToParent) => void): void;
  /** Resolves once the child is gone and every message it sent has arrived. */
  readonly exited: Promise<ChildExit>;
  /** Asks the child to stop (SIGTERM; a thread is terminated). */
  terminate(): void;
  /** Stops the child at once (SIGKILL; a thread is terminated). */
  kill(): void;
}

// Child processes still alive, killed if this process exits first (threads die with it anyway).
const liveProcesses = new Set<ChildProcess>();
let exitHookInstalled = false;

function killOnParentExit(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const live of liveProcesses) live.kill('SIGKILL');
    });
  }
  liveProcesses.add(child);
}

/** What a Worker may add to how its children start (bullmq's workerForkOptions and friends). */
export interface ChildStartOptions {
  forkOptions?: ForkOptions;
  threadOptions?: ThreadOptions;
}

function forkTransport(file: string, options: ForkOptions = {}): ChildTransport {
  const runtime = sandboxRuntime(file);
  // No env of its own unless the caller gives one: the child inherits this process's, so it
  // sees what the parent's in-process processors see (the worker runner has already taken the
  // console's variables out of it: runner/withhold-console-env.ts).
  const child = fork(runtime.entryFile, [file], {
    ...options,
    // The loader must stay; the caller's flags (a heap limit, say) come after it.
    execArgv: [
      ...childExecArgv(process.execArgv, runtime.tsx?.loaderUrl ?? null),
      ...(options.execArgv ?? []),
    ],
    // Piped, then copied into this process's streams: whatever captures this process's output
    // (a logger, a test) sees the children's too, as with bullmq.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'json',
  });
  child.stdout?.pipe(process.stdout, { end: false });
  child.stderr?.pipe(process.stderr, { end: false });
  killOnParentExit(child);
  let spawnError: Error | undefined;
  const exited = new Promise<ChildExit>((resolve) => {
    // 'close' comes after 'exit' and after the IPC channel has closed, so no message is lost.
    child.once('close', (code, signal) => {
      liveProcesses.delete(child);
      resolve({ code, signal, error: spawnError });
    });
    child.on('error', (error) => {
      // A failed spawn emits no 'close'; a failed send (child already gone) changes nothing.
      if (child.pid === undefined) {
        liveProcesses.delete(child);
        resolve({ code: null, signal: null, error });
      }
      spawnError ??= error;
    });
  });
  return {
    pid: child.pid ?? -1,
    kind: 'process',
    send(message) {
      if (!child.connected) return;
      child.send(message, (error) => void error);
    },
    onMessage(listener) {
      child.on('message', (message) => listener(message as ChildToParent));
    },
    exited,
    terminate: () => void child.kill('SIGTERM'),
    kill: () => void child.kill('SIGKILL'),
  };
}

/**
 * tsx's `--import` does not reach worker threads on Node 20, so the thread starts with a tiny
 * CommonJS bootstrap that registers tsx's ESM and CommonJS hooks (when tsx is there), then
 * imports the entry.
 */
const THREAD_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const hooks = workerData.tsxEsmApiUrl
  ? import(workerData.tsxEsmApiUrl).then((api) => {
      api.register();
      require(workerData.tsxCjsApiPath).register();
    })
  : Promise.resolve();
hooks.then(() => import(workerData.entryUrl));
`;

function threadTransport(file: string, options: ThreadOptions = {}): ChildTransport {
  const runtime = sandboxRuntime(file);
  // Without `env` a thread starts with a copy of this process's environment, as a forked child.
  const thread = new ThreadWorker(THREAD_BOOTSTRAP, {
    ...options,
    eval: true,
    // The parent's flags (vitest's hooks, a second tsx) are not the thread's business.
    execArgv: options.execArgv ?? [],
    workerData: {
      file,
      entryUrl: pathToFileURL(runtime.entryFile).href,
      tsxEsmApiUrl: runtime.tsx?.esmApiUrl ?? null,
      tsxCjsApiPath: runtime.tsx?.cjsApiPath ?? null,
    },
  });
  let runtimeError: Error | undefined;
  thread.on('error', (error) => (runtimeError ??= error));
  const exited = new Promise<ChildExit>((resolve) => {
    // Node delivers the thread's pending messages before 'exit'.
    thread.once('exit', (code) => resolve({ code, signal: null, error: runtimeError }));
  });
  let gone = false;
  void exited.then(() => (gone = true));
  return {
    pid: process.pid,
    kind: 'thread',
    send(message) {
      if (!gone) thread.postMessage(message);
    },
    onMessage(listener) {
      thread.on('message', (message: ChildToParent) => listener(message));
    },
    exited,
    terminate: () => void thread.terminate(),
    kill: () => void thread.terminate(),
  };
}

export function startChild(
  file: string,
  useWorkerThreads: boolean,
  options: ChildStartOptions = {},
): ChildTransport {
  return useWorkerThreads
    ? threadTransport(file, options.threadOptions)
    : forkTransport(file, options.forkOptions);
}
