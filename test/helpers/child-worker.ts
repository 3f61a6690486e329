/**
 * A worker that really dies: it runs in a child process (OxMQ's or bullmq's Worker), takes one
 * job, reports it on stdout and is then SIGKILLed by the test, so its lock simply expires the
 * way it does when a machine goes away (no close(), no lock release, no last renewal).
 *
 * The child scripts are TypeScript (child-worker-<side>.entry.ts). Nothing here runs TS
 * directly, so each entry is bundled once per test process with rolldown (the bundler vite ships
 * with) into a temporary CommonJS file; packages stay external and resolve through NODE_PATH.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

export type WorkerSide = 'oxmq' | 'bullmq';

/** What the child reads from OXMQ_CHILD_CONFIG. */
export interface ChildWorkerConfig {
  queueName: string;
  port: number;
  lockDuration: number;
  workerName?: string;
}

export interface ChildWorker {
  readonly pid: number;
  /** Resolves with the id of the job the child's processor started. */
  readonly took: Promise<string>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
}

const TAKE_TIMEOUT_MS = 15_000;
const helpersDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(helpersDir, '..', '..');
const bundles = new Map<WorkerSide, Promise<string>>();
let bundleDir: string | undefined;

function outputDir(): string {
  if (!bundleDir) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-child-'));
    bundleDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return bundleDir;
}

function bundle(side: WorkerSide): Promise<string> {
  let pending = bundles.get(side);
  if (!pending) {
    const file = path.join(outputDir(), `child-worker-${side}.cjs`);
    pending = build({
      input: path.join(helpersDir, `child-worker-${side}.entry.ts`),
      platform: 'node',
      // Only our own sources are bundled; ioredis, bullmq and the like load from node_modules.
      external: (id: string) => !id.startsWith('.') && !path.isAbsolute(id),
      output: { file, format: 'cjs' },
      logLevel: 'warn',
    }).then(() => file);
    bundles.set(side, pending);
  }
  return pending;
}

/** Starts a child worker of `side` on the queue; it takes the first job it can get. */
export async function startChildWorker(
  side: WorkerSide,
  config: ChildWorkerConfig,
): Promise<ChildWorker> {
  const file = await bundle(side);
  const child = spawn(process.execPath, [file], {
    // The engine finds lua/ under the working directory when it is not next to the bundle.
    cwd: repoRoot,
    env: {
      ...process.env,
      NODE_PATH: path.join(repoRoot, 'node_modules'),
      OXMQ_CHILD_CONFIG: JSON.stringify(config),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Never outlive the test process, whatever happens to the test.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const took = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child ${side} worker took no job within ${TAKE_TIMEOUT_MS} ms: ${stderr}`));
    }, TAKE_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^TOOK (\S+)$/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`child ${side} worker exited (${code ?? signal}) before taking a job: ${stderr}`),
      );
    });
  });
  took.catch(() => undefined);
  return {
    pid: child.pid ?? -1,
    took,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
