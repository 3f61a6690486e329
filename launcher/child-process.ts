/**
 * The launcher's children (console, worker runner, demo producer, Redis): each in its own
 * process group, so a Ctrl-C in the terminal reaches only the launcher, which then stops them
 * in order (workers finish their jobs before Redis goes away). Output is relayed line by line
 * with the child's label in front.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ManagedChild {
  readonly label: string;
  readonly process: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  readonly exited: Promise<number | string>;
  running(): boolean;
  /**
   * SIGTERM, at least `stopSignalSpacingMs` after the previous one (a child that takes signals
   * close together for one request would otherwise ignore it).
   */
  requestStop(): void;
  /** requestStop(), then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs: number): Promise<number | string>;
}

const children = new Set<ManagedChild>();

export function spawnChild(
  label: string,
  command: string,
  args: readonly string[],
  options: SpawnOptions & {
    quiet?: boolean;
    /** Written to the child's standard input, which is then closed (e.g. a secret, kept off argv). */
    stdin?: string;
    /** The gap requestStop() leaves between two SIGTERMs (runner/stop-signals.ts); 0 by default. */
    stopSignalSpacingMs?: number;
  },
): ManagedChild {
  const { quiet, stdin, stopSignalSpacingMs = 0, ...spawnOptions } = options;
  const child = spawn(command, args, {
    ...spawnOptions,
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  if (stdin !== undefined && child.stdin) {
    // A child that exits before reading its input makes the pipe fail: its exit says the rest.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  }
  let alive = true;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      alive = false;
      resolve(code ?? signal ?? 'unknown');
    });
    child.once('error', (error) => {
      alive = false;
      process.stderr.write(`${label} | could not start: ${error.message}\n`);
      resolve('spawn-error');
    });
  });
  if (!quiet) {
    relay(child.stdout, process.stdout, label);
    relay(child.stderr, process.stderr, label);
  }
  let nextStopSignalAt = 0;
  const requestStop = () => {
    const delay = Math.max(0, nextStopSignalAt - Date.now());
    nextStopSignalAt = Date.now() + delay + stopSignalSpacingMs;
    if (delay === 0) {
      if (alive) signal(child, 'SIGTERM');
    } else setTimeout(() => alive && signal(child, 'SIGTERM'), delay);
  };
  const managed: ManagedChild = {
    label,
    process: child,
    exited,
    running: () => alive,
    requestStop,
    async stop(graceMs) {
      requestStop();
      const timer = setTimeout(() => alive && signal(child, 'SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  children.add(managed);
  void exited.then(() => children.delete(managed));
  return managed;
}

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    child.kill(name);
  } catch {
    // Already gone.
  }
}

function relay(from: NodeJS.ReadableStream | null, to: NodeJS.WritableStream, label: string): void {
  if (!from) return;
  const lines = createInterface({ input: from, crlfDelay: Infinity });
  lines.on('line', (line) => to.write(`${label.padEnd(7)} | ${line}\n`));
}

/** Last resort when the launcher itself is going down hard: no child may outlive it. */
export function killAllChildren(): void {
  for (const child of children) signal(child.process, 'SIGKILL');
}
