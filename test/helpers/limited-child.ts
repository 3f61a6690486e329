/**
 * A worker in a process of its own that finishes its jobs, for limits that must hold across
 * processes (rate limits, global concurrency). child-worker.ts covers workers that die holding a
 * job; this one completes each job after `jobMs`, may carry its own `limiter`, and closes
 * gracefully on close() (SIGTERM), falling back to SIGKILL.
 *
 * The child (limited-child.entry.ts) reports on stdout, one JSON object a line: `ready`,
 * `started` (job id, pid), `completed` (job id) and `error`. As in child-worker.ts, the entry is
 * bundled once per test process with rolldown into memory, packages stay external and resolve
 * from node_modules through NODE_PATH, and each spawn writes the bundle to a fresh temporary .cjs
 * file that is deleted once node has loaded it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import type { ChildMessage, WorkerSide } from './child-worker';

/** What the child reads from argv[2] (as JSON). Unset options keep the library's defaults. */
export interface LimitedChildConfig {
  side: WorkerSide;
  queueName: string;
  port: number;
  concurrency?: number;
  limiter?: { max: number; duration: number };
  drainDelay?: number;
  /** How long each job runs before it completes (ms). */
  jobMs?: number;
}

export interface LimitedChild {
  readonly pid: number;
  /** Every message received so far, oldest first. */
  readonly messages: readonly ChildMessage[];
  waitForMessage(
    match: (message: ChildMessage) => boolean,
    timeoutMs?: number,
  ): Promise<ChildMessage>;
  /** Graceful close (SIGTERM, the child closes its worker); SIGKILL after `timeoutMs`. */
  close(timeoutMs?: number): Promise<void>;
}

const helpersDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(helpersDir, '..', '..');
let bundled: Promise<string> | undefined;

function bundleCode(): Promise<string> {
  bundled ??= build({
    input: path.join(helpersDir, 'limited-child.entry.ts'),
    platform: 'node',
    cwd: repoRoot,
    external: (id: string) => !id.startsWith('.') && !path.isAbsolute(id),
    logLevel: 'warn',
    write: false,
    output: { format: 'cjs' },
  }).then((result) => result.output[0].code);
  return bundled;
}

/** Starts a worker process of `config.side`; resolves once it reported `ready`. */
export async function startLimitedChild(config: LimitedChildConfig): Promise<LimitedChild> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-limited-'));
  const file = path.join(dir, `limited-child-${config.side}.cjs`);
  writeFileSync(file, await bundleCode());
  const child = spawn(process.execPath, [file, JSON.stringify(config)], {
    cwd: repoRoot,
    env: { ...process.env, NODE_PATH: path.join(repoRoot, 'node_modules') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let removed = false;
  const removeBundle = () => {
    if (removed) return;
    removed = true;
    rmSync(dir, { recursive: true, force: true });
  };
  child.stdout.once('data', removeBundle);
  child.once('exit', removeBundle);
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
  const running = () => child.exitCode === null && child.signalCode === null;

  const handle: LimitedChild = {
    pid: child.pid ?? -1,
    messages,
    waitForMessage(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (found) {
            done();
            resolve(found);
          } else if (!running()) {
            done();
            reject(
              new Error(
                `limited ${config.side} worker exited (${child.exitCode ?? child.signalCode}): ${stderr}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `limited ${config.side} worker sent no matching message in ${timeoutMs} ms: ${stderr}`,
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
    async close(timeoutMs = 10_000) {
      if (!running()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
  await handle.waitForMessage((message) => message.event === 'ready');
  return handle;
}
