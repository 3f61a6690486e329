/**
 * The gate in scripts/check-engine-consumers.mjs, run on a small repository laid out in a temp
 * directory: package-name imports pass, paths into engine/ and unexported subpaths fail, and the
 * test-only entry passes under test/ alone.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const script = path.resolve('scripts/check-engine-consumers.mjs');
const root = mkdtempSync(path.join(os.tmpdir(), 'oxmq-consumers-'));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

async function check(): Promise<{ code: number; stderr: string; stdout: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, root]);
    return { code: 0, stdout, stderr };
  } catch (caught) {
    const failed = caught as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('check-engine-consumers', () => {
  it('passes imports by the package name and the test-only entry under test/', async () => {
    write('engine/index.ts', "export { helper } from './helper';\n");
    write('engine/helper.ts', 'export const helper = 1;\n');
    write(
      'lib/server.ts',
      "import { Queue } from 'oxmq';\nimport { listQueues } from 'oxmq/admin';\n",
    );
    write('test/unit.test.ts', "import { QueueKeys } from 'oxmq/internals';\n");
    const result = await check();
    expect(result.stdout).toContain('OK');
    expect(result.code).toBe(0);
  });

  it('refuses paths into engine/, unexported subpaths and internals outside test/', async () => {
    write('lib/deep.ts', "import { helper } from '../engine/helper';\n");
    write('app/alias.ts', "export type { X } from '@/engine/helper';\n");
    write('bench/internal.ts', "const internals = require('oxmq/internals');\n");
    write('components/sub.ts', "import('oxmq/keys');\n");
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("lib/deep.ts:1  imports '../engine/helper'");
    expect(result.stderr).toContain("app/alias.ts:1  imports '@/engine/helper'");
    expect(result.stderr).toContain("bench/internal.ts:1  imports 'oxmq/internals'");
    expect(result.stderr).toContain("components/sub.ts:1  imports 'oxmq/keys'");
    expect(result.stderr).toContain('4 forbidden import(s)');
  });
});
