/**
 * Runs a TypeScript entry of test/helpers in a child process. Nothing here runs TypeScript
 * directly, so each entry is bundled once per test process with rolldown into memory; packages
 * stay external and resolve from node_modules through NODE_PATH. Every spawn writes the bundle to
 * a fresh temporary .cjs file, deleted as soon as node has loaded it. The child runs with the
 * repository as its working directory and reads its config from argv[2] (JSON). It reports on
 * stdout, one JSON object a line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

export interface ChildMessage {
  event: string;
  [field: string]: unknown;
}

export interface BundledChild {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Every message received so far, oldest first. */
  readonly messages: readonly ChildMessage[];
  /** Resolves with the first message (already received or future) that matches. */
  waitForMessage(
    match: (message: ChildMessage) => boolean,
    timeoutMs?: number,
  ): Promise<ChildMessage>;
  running(): boolean;
  /** Resolves once the process is gone. */
  readonly exited: Promise<void>;
}

const helpersDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(helpersDir, '..', '..');
const bundles = new Map<string, Promise<string>>();

/** `entry` (a file name in test/helpers) as CommonJS code, built once per test process. */
function bundleCode(entry: string): Promise<string> {
  let bundled = bundles.get(entry);
  if (!bundled) {
    bundled = build({
      input: path.join(helpersDir, entry),
      platform: 'node',
      cwd: repoRoot,
      // Only our own sources are bundled; ioredis, bullmq and the like load from node_modules.
      external: (id: string) => !id.startsWith('.') && !path.isAbsolute(id),
      logLevel: 'warn',
      write: false,
      output: { format: 'cjs' },
    }).then((result) => result.output[0].code);
    bundles.set(entry, bundled);
  }
  return bundled;
}

export async function spawnBundledChild(
  entry: string,
  label: string,
  config: unknown,
): Promise<BundledChild> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-child-'));
  const file = path.join(dir, `${label}.cjs`);
  writeFileSync(file, await bundleCode(entry));
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
  const running = () => child.exitCode === null && child.signalCode === null;

  return {
    process: child,
    pid: child.pid ?? -1,
    messages,
    running,
    exited,
    waitForMessage(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (found) {
            done();
            resolve(found);
          } else if (!running()) {
            done();
            reject(new Error(`${label} exited (${child.exitCode ?? child.signalCode}): ${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${label} sent no matching message in ${timeoutMs} ms: ${stderr}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
