/**
 * What the deployment helpers (test/helpers/redis-cluster.ts, test/helpers/redis-sentinel.ts)
 * share: one-shot admin commands to a node by port, INFO parsing, and polling with a reason.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { launch, terminate } from '../setup/redis-server';

export interface RedisAddress {
  host: string;
  port: number;
}

export const HOST = '127.0.0.1';

/**
 * Sends one command to the server (or sentinel) on `port` over a fresh connection and closes it.
 * No retries and no offline queue: a dead node fails the call at once instead of hanging.
 */
export async function ask(port: number, command: string, ...args: (string | number)[]) {
  const client = new Redis({
    host: HOST,
    port,
    lazyConnect: true,
    enableReadyCheck: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: () => null,
  });
  client.on('error', () => {}); // The rejected call carries the error.
  try {
    await client.connect();
    return await client.call(command, ...args);
  } finally {
    client.disconnect();
  }
}

/** `INFO <section>` as a map of its `key:value` lines. */
export async function info(port: number, section: string): Promise<Map<string, string>> {
  const text = String(await ask(port, 'INFO', section));
  const fields = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/**
 * Polls until `check` resolves truthy (a throwing check counts as "not yet": nodes refuse
 * connections while they start or fail over). On timeout the error names what was awaited and the
 * last failure, which is what a flaky deployment test needs to be diagnosed.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not yet';
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms: ${what} (${last})`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** One spawned process of a deployment, with its own temporary directory. */
/** The arguments every data node of a test deployment starts with: no persistence, quick syncs. */
export function dataNodeArgs(port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    HOST,
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    // A replica's first sync would wait 5 s for others to join it; nobody else comes.
    '--repl-diskless-sync-delay',
    '0',
  ];
}

export interface DeploymentNode {
  readonly port: number;
  readonly dir: string;
  alive(): boolean;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `redis-server <args>` in a fresh temporary directory (the node's `dir`, given to `args`)
 * and resolves once it listens on `port`; the directory is removed if the start fails.
 */
export async function startNode(
  label: string,
  port: number,
  args: (dir: string) => string[],
): Promise<DeploymentNode> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `oxmq-${label}-`));
  let child: ChildProcess;
  try {
    child = await launch(args(dir), port);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    port,
    dir,
    alive: () => !exited(),
    kill: () => terminate(child, 'SIGKILL'),
    async stop() {
      await terminate(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Stops every node, whatever happens to the others, and rethrows the first failure. */
export async function stopAll(nodes: Iterable<DeploymentNode>): Promise<void> {
  const results = await Promise.allSettled([...nodes].map((node) => node.stop()));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}
