/**
 * Runs the real worker runner (`node --import tsx runner/main.ts`) as a child process for a
 * test: a temporary processors folder holding the modules the test names, a private prefix, a
 * health server on a free port (read from the "runner ready" log line) and an empty config file
 * unless the test brings one, so an oxmq.config.json lying in the checkout changes nothing.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { redisUrl } from './redis';

const helpersDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(helpersDir, '..', '..');
const fixturesDir = path.join(helpersDir, 'runner-fixtures');

/** One pino line of the runner's stdout. */
export interface LogLine {
  level: string;
  time: string;
  msg: string;
  component: string;
  [field: string]: unknown;
}

export interface RunnerProcessOptions {
  /** File name in the processors folder → source. See fixture(). */
  modules?: Record<string, string>;
  /** Added to (and overriding) the runner's environment. */
  env?: Record<string, string>;
  /** Content of the config file OXMQ_CONFIG points at (default `{}`). */
  configFile?: Record<string, unknown>;
}

export interface RunnerProcess {
  readonly pid: number;
  /** The queue key prefix this runner uses (OXMQ_PREFIX, unless the test set its own). */
  readonly prefix: string;
  /** The temporary processors folder. */
  readonly processorsDir: string;
  readonly logs: readonly LogLine[];
  stderr(): string;
  /** Resolves with the first log line (already written or future) that matches. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Waits for "runner ready" and returns the health port. */
  ready(timeoutMs?: number): Promise<number>;
  /** GET on the health server. */
  get(pathname: string): Promise<{ status: number; body: Record<string, unknown> }>;
  signal(signal: NodeJS.Signals): void;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  running(): boolean;
}

/** The source of a fixture module in test/helpers/runner-fixtures. */
export function fixture(name: string): string {
  return readFileSync(path.join(fixturesDir, name), 'utf8');
}

export function startRunnerProcess(options: RunnerProcessOptions = {}): RunnerProcess & {
  dispose(): Promise<void>;
} {
  const root = mkdtempSync(path.join(os.tmpdir(), 'oxmq-runner-'));
  const processorsDir = path.join(root, 'processors');
  mkdirSync(processorsDir);
  for (const [name, source] of Object.entries(options.modules ?? {}))
    writeFileSync(path.join(processorsDir, name), source);
  const configFile = path.join(root, 'oxmq.config.json');
  writeFileSync(configFile, JSON.stringify(options.configFile ?? {}));

  const prefix = `run-${randomUUID().slice(0, 8)}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    REDIS_URL: redisUrl(),
    OXMQ_PREFIX: prefix,
    OXMQ_PROCESSORS_DIR: processorsDir,
    OXMQ_CONFIG: configFile,
    WORKER_HEALTH_PORT: '0',
    OXMQ_LOG_LEVEL: 'debug',
    ...options.env,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'runner/main.ts'], {
    cwd: repoRoot,
    // Next's types make NODE_ENV a required key of ProcessEnv; the runner reads no NODE_ENV.
    env: { NODE_ENV: 'test' as const, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  const logs: LogLine[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        // Not every line is pino's (e.g. a processor's console.log): keep it for diagnosis.
        logs.push({ level: 'raw', time: '', msg: line, component: 'stdout' });
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));

  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      for (const wake of waiters) wake();
      resolve(code);
    }),
  );

  const describe = () =>
    `runner logs:\n${logs.map((line) => JSON.stringify(line)).join('\n')}\nstderr:\n${stderr}`;

  const waitForLog = (match: (line: LogLine) => boolean, timeoutMs = 20_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = () => {
        const found = logs.find(match);
        if (found) {
          done();
          resolve(found);
        } else if (exitCode !== undefined) {
          done();
          reject(new Error(`runner exited (${exitCode}) before the log line came\n${describe()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no matching log line within ${timeoutMs} ms\n${describe()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  let healthPort: number | undefined;
  const ready = async (timeoutMs?: number) => {
    const line = await waitForLog((entry) => entry.msg === 'runner ready', timeoutMs);
    healthPort = line.healthPort as number;
    return healthPort;
  };

  return {
    pid: child.pid ?? -1,
    prefix: env.OXMQ_PREFIX ?? prefix,
    processorsDir,
    logs,
    stderr: () => stderr,
    waitForLog,
    ready,
    async get(pathname) {
      const port = healthPort ?? (await ready());
      const response = await fetch(`http://127.0.0.1:${port}${pathname}`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    signal: (signal) => child.kill(signal),
    exited,
    running: () => exitCode === undefined,
    async dispose() {
      if (exitCode === undefined) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** startRunnerProcess, with every runner killed (if still running) and removed after each test. */
export function useRunners(): (options?: RunnerProcessOptions) => RunnerProcess {
  const started: { dispose(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((runner) => runner.dispose()));
  });
  return (options) => {
    const runner = startRunnerProcess(options);
    started.push(runner);
    return runner;
  };
}
