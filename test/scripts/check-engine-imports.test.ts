/**
 * The storage seam rule of scripts/check-engine-imports.mjs (scripts/storage-seam-rule.mjs),
 * run on a small engine laid out in a temp directory: the Redis storage's places and the listed
 * files may reach Redis; everything else only names its types.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const script = path.resolve('scripts/check-engine-imports.mjs');
const root = mkdtempSync(path.join(os.tmpdir(), 'oxmq-engine-imports-'));
const engine = path.join(root, 'engine');

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(engine, file)), { recursive: true });
  writeFileSync(path.join(engine, file), text);
}

async function check(): Promise<{ code: number; stderr: string; stdout: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, engine]);
    return { code: 0, stdout, stderr };
  } catch (caught) {
    const failed = caught as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('check-engine-imports: the storage seam', () => {
  it('lets the Redis storage and the listed files reach Redis, and others name its types', async () => {
    write(
      'backend/redis/run-script.ts',
      "import { Redis } from 'ioredis';\nexport const runScript = Redis;\n",
    );
    write(
      'backend/redis/connection.ts',
      'export type RedisClient = object;\nexport const connect = 1;\n',
    );
    write('connection.ts', "export * from './backend/redis/connection';\n");
    write(
      'admin/queues.ts',
      "import { Redis } from 'ioredis';\nimport { connect } from '../connection';\n",
    );
    write(
      'worker.ts',
      "import type { RedisClient } from './connection';\nimport { type RedisClient as R } from './backend/redis/connection';\n",
    );
    const result = await check();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('refuses ioredis, runScript, the script registry and connection helpers elsewhere', async () => {
    write('queue.ts', "import { runScript } from './backend/redis/run-script';\n");
    write('history/writer.ts', "import type { Redis } from 'ioredis';\n");
    write('worker/heartbeat.ts', "import { connect } from '../connection';\n");
    write('flow.ts', "export { registerScripts } from './scripts/loader';\n");
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("queue.ts:1  imports './backend/redis/run-script'");
    expect(result.stderr).toContain("history/writer.ts:1  imports 'ioredis'");
    expect(result.stderr).toContain("worker/heartbeat.ts:1  imports '../connection'");
    expect(result.stderr).toContain("flow.ts:1  imports './scripts/loader'");
    expect(result.stderr).toContain('4 forbidden import(s)');
  });
});
