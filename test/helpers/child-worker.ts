/**
 * A worker that really dies: OxMQ's or bullmq's Worker runs in a child process, takes jobs and
 * never finishes them, and the test SIGKILLs it while it holds one, so its lock simply expires the
 * way it does when a machine goes away (no close(), no lock release, no last renewal).
 *
 * The child (child-worker.entry.ts) reports on stdout, one JSON object a line: `ready`, `active`
 * (with the job id) for every job it starts, and `error`. Nothing here runs TypeScript directly,
 * so the entry is bundled once per test process with rolldown into memory; packages stay external
 * and resolve from node_modules through NODE_PATH. Every spawn writes the bundle to a fresh
 * temporary .cjs file, deleted as soon as node has loaded it. The child runs with the repository
 * as its working directory, where the engine finds lua/.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

export type WorkerSide = 'oxmq' | 'bullmq';

/** What the child reads from argv[2] (as JSON). Unset options keep the library's defaults. */
export interface ChildWorkerConfig {
  side: WorkerSide;
  queueName: string;
  port: number;
  workerName?: string;
  lockDuration?: number;
  stalledInterval?: number;
  skipStalledCheck?: boolean;
}

export interface ChildMessage {
  event: string;
  [field: string]: unknown;
}

export interface ChildWorker {
  readonly pid: number;
  /** Resolves with the first message (already received or future) that matches. */
  waitForMessage(
    match: (message: ChildMessage) => boolean,
    timeoutMs?: number,
  ): Promise<ChildMessage>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
}

const helpersDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(helpersDir, '..', '..');
let bundled: Promise<string> | undefined;

/** The child entry as CommonJS code, built once per test process. */
function bundleCode(): Promise<string> {
  bundled ??= build({
    input: path.join(helpersDir, 'child-worker.entry.ts'),
    platform: 'node',
    cwd: repoRoot,
    // Only our own sources are bundled; ioredis, bullmq and the like load from node_modules.
    external: (id: string) => !id.startsWith('.') && !path.isAbsolute(id),
    logLevel: 'warn',
    write: false,
    output: { format: 'cjs' },
  }).then((result) => result.output[0].code);
  return bundled;
}

/** Starts a child worker of `config.side` on the queue; it takes every job it can get. */
export async function startChildWorker(config: ChildWorkerConfig): Promise<ChildWorker> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-child-'));
  const file = path.join(dir, `child-worker-${config.side}.cjs`);
  writeFileSync(file, await bundleCode());
  const child = spawn(process.execPath, [file, JSON.stringify(config)], {
    cwd: repoRoot,
    env: { ...process.env, NODE_PATH: path.join(repoRoot, 'node_modules') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Once node has loaded the bundle (first output) or exited, the file is no longer needed.
  let removed = false;
  const removeBundle = () => {
    if (removed) return;
    removed = true;
    rmSync(dir, { recursive: true, force: true });
  };
  child.stdout.once('data', removeBundle);
  child.once('exit', removeBundle);
  // Never outlive the test process, whatever happens to the test.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));

  const messages: ChildMessage[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) {
        try {
          messages.push(JSON.parse(line) as ChildMessage);
        } catch {
          messages.push({ event: 'stdout', line });
        }
      }
      newline = buffered.indexOf('\n');
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', () => {
    for (const wake of waiters) wake();
  });

  return {
    pid: child.pid ?? -1,
    waitForMessage(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (found) {
            done();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(
              new Error(
                `child ${config.side} worker exited (${child.exitCode ?? child.signalCode}): ${stderr}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `child ${config.side} worker sent no matching message in ${timeoutMs} ms: ${stderr}`,
            ),
          );
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
