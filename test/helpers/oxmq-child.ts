/**
 * Runs an OxMQ worker in a real child process, so a test can SIGKILL it while it holds a job:
 * no close(), no lock release, exactly what a crashed machine leaves behind.
 *
 * The child's TypeScript entry (oxmq-child-worker.ts, which imports engine/) is bundled once per
 * test process with rolldown (vite's bundler, already installed) into a temporary .cjs file and
 * started with this very node binary. The child runs with the repository as its working
 * directory, where the engine finds lua/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'rolldown';
import type { ChildWorkerConfig } from './oxmq-child-worker';

const repoRoot = path.resolve(__dirname, '..', '..');
let bundled: Promise<string> | undefined;

function bundleChild(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-child-'));
    const file = path.join(dir, 'oxmq-child-worker.cjs');
    await build({
      input: path.join(__dirname, 'oxmq-child-worker.ts'),
      platform: 'node',
      cwd: repoRoot,
      logLevel: 'silent',
      write: true,
      output: { file, format: 'cjs' },
    });
    return file;
  })();
  return bundled;
}

export interface ChildMessage {
  event: string;
  [field: string]: unknown;
}

export interface OxmqChild {
  readonly process: ChildProcess;
  readonly messages: ChildMessage[];
  /** Resolves with the first message (already received or future) that matches. */
  waitForMessage(
    match: (message: ChildMessage) => boolean,
    timeoutMs?: number,
  ): Promise<ChildMessage>;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
}

export async function spawnOxmqChild(config: ChildWorkerConfig): Promise<OxmqChild> {
  const file = await bundleChild();
  const child = spawn(process.execPath, [file, JSON.stringify(config)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const messages: ChildMessage[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  let buffered = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
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
    process: child,
    messages,
    waitForMessage(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (found) {
            done();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`child exited (${child.exitCode ?? child.signalCode}): ${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`child sent no matching message in ${timeoutMs} ms: ${stderr}`));
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
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
