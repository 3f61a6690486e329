/**
 * The storage seam rule of scripts/check-engine-imports.mjs (scripts/storage-seam-rule.mjs), run on
 * a small engine laid out in a temp directory. The rule goes by folder: engine/backend/redis/,
 * engine/scripts/ and engine/admin/redis/ may reach Redis; the rest of engine/admin/ may use the
 * admin's Redis reads; everything else only names Redis types.
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
  it("lets Redis's folders reach Redis, the admin use its Redis reads, others name types", async () => {
    write(
      'backend/redis/run-script.ts',
      "import { Redis } from 'ioredis';\nexport const runScript = Redis;\n",
    );
    write(
      'backend/redis/connection.ts',
      'export type RedisClient = object;\nexport const connect = 1;\n',
    );
    write('scripts/loader.ts', "import { runScript } from '../backend/redis/run-script';\n");
    write(
      'admin/redis/queues.ts',
      "import { Redis } from 'ioredis';\nimport { connect } from '../../backend/redis/connection';\n" +
        "import { runScript } from '../../backend/redis/run-script';\nexport const listQueues = 1;\n",
    );
    write('admin/redis/integrity/probe.ts', "import type { Cluster } from 'ioredis';\n");
    write('admin/create-admin.ts', "import { listQueues } from './redis/queues';\n");
    write('admin/index.ts', "export { listQueues } from './redis/queues';\n");
    write('index.ts', "export { connect } from './backend/redis/connection';\n");
    write(
      'worker/worker.ts',
      "import type { RedisClient } from '../backend/redis/connection';\nimport { type RedisClient as R } from '../backend/redis/connection';\n",
    );
    const result = await check();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it("refuses ioredis, runScript, the script registry and the admin's Redis reads elsewhere", async () => {
    write('queue/queue.ts', "import { runScript } from '../backend/redis/run-script';\n");
    write('history/writer.ts', "import type { Redis } from 'ioredis';\n");
    write('worker/heartbeat.ts', "import { connect } from '../backend/redis/connection';\n");
    write('flow/producer.ts', "export { registerScripts } from '../scripts/loader';\n");
    // A file of engine/admin/ outside admin/redis/ is not a Redis place: no ioredis there.
    write('admin/job-scan.ts', "import { Redis } from 'ioredis';\n");
    // Only the admin puts the admin's Redis reads together.
    write('queue/events.ts', "import { listQueues } from '../admin/redis/queues';\n");
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("queue/queue.ts:1  imports '../backend/redis/run-script'");
    expect(result.stderr).toContain("history/writer.ts:1  imports 'ioredis'");
    expect(result.stderr).toContain("worker/heartbeat.ts:1  imports '../backend/redis/connection'");
    expect(result.stderr).toContain("flow/producer.ts:1  imports '../scripts/loader'");
    expect(result.stderr).toContain("admin/job-scan.ts:1  imports 'ioredis'");
    expect(result.stderr).toContain("queue/events.ts:1  imports '../admin/redis/queues'");
    expect(result.stderr).toContain('6 forbidden import(s)');
  });
});
