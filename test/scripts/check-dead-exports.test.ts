/**
 * The dead-export check of `npm run lint` (knip, configured by knip.jsonc), run with the
 * repository's own configuration on a small project laid out in a temp directory: an engine
 * package with its public entries, a console module and a test. A name exported from engine/ or
 * lib/ that nothing imports fails the check, and so does a module nothing imports; the entries'
 * exports and names a test imports count as used.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const knip = path.resolve('node_modules/knip/bin/knip.js');
const root = mkdtempSync(path.join(os.tmpdir(), 'oxmq-dead-exports-'));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

async function check(): Promise<{ code: number; stdout: string }> {
  const args = [knip, '--directory', root, '--no-progress', '--no-config-hints'];
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args);
    return { code: 0, stdout };
  } catch (caught) {
    const failed = caught as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: `${failed.stdout}${failed.stderr}` };
  }
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('check-dead-exports', () => {
  it('fails on names exported from engine/ and lib/ that nothing imports', async () => {
    copyFileSync(path.resolve('knip.jsonc'), path.join(root, 'knip.jsonc'));
    write(
      'package.json',
      JSON.stringify({ name: 'fixture', private: true, workspaces: ['engine'] }),
    );
    write(
      'tsconfig.json',
      JSON.stringify({
        compilerOptions: {
          moduleResolution: 'bundler',
          paths: {
            oxmq: ['./engine/index.ts'],
            'oxmq/admin': ['./engine/admin/index.ts'],
            'oxmq/internals': ['./engine/internals.ts'],
          },
        },
      }),
    );
    write('engine/package.json', JSON.stringify({ name: 'oxmq', private: true }));
    write('engine/index.ts', "export { Queue } from './queue/queue';\n");
    write('engine/admin/index.ts', "export { listQueues } from './queues';\n");
    write('engine/admin/queues.ts', 'export const listQueues = () => [];\n');
    write('engine/internals.ts', "export { keyOf } from './queue/keys';\n");
    write('engine/queue/keys.ts', 'export const keyOf = (name: string) => `bull:${name}`;\n');
    write(
      'engine/queue/queue.ts',
      "import { keyOf } from './keys';\n" +
        'export class Queue {\n  key = keyOf(QUEUE_NAME);\n}\n' +
        "export const QUEUE_NAME = 'q';\n" +
        'export function unusedHelper(): number {\n  return 1;\n}\n',
    );
    write(
      'lib/view.ts',
      "import { Queue } from 'oxmq';\nimport { format } from './format';\n" +
        'export const view = () => format(new Queue().key);\n',
    );
    write(
      'lib/format.ts',
      'export type Formatted = string;\nexport const format = (text: string): string => text;\n',
    );
    // A module nothing imports is dead as a whole.
    write('lib/orphan.ts', 'export const orphan = 1;\n');
    write(
      'test/view.test.ts',
      "import { keyOf } from 'oxmq/internals';\nimport { view } from '../lib/view';\n" +
        'view();\nkeyOf("a");\n',
    );

    const dead = await check();
    expect(dead.code).toBe(1);
    expect(dead.stdout).toMatch(/QUEUE_NAME\s.*engine\/queue\/queue\.ts/);
    expect(dead.stdout).toMatch(/unusedHelper\s.*engine\/queue\/queue\.ts/);
    expect(dead.stdout).toMatch(/Formatted\s.*lib\/format\.ts/);
    expect(dead.stdout).toContain('lib/orphan.ts');
    // Entries' exports (listQueues: oxmq/admin) and names a test imports count as used.
    expect(dead.stdout).not.toContain('listQueues');
    expect(dead.stdout).not.toContain('keyOf');
    expect(dead.stdout).not.toMatch(/\bview\b/);
  });

  it('passes once the dead names are gone or no longer exported', async () => {
    write(
      'engine/queue/queue.ts',
      "import { keyOf } from './keys';\n" +
        "const QUEUE_NAME = 'q';\n" +
        'export class Queue {\n  key = keyOf(QUEUE_NAME);\n}\n',
    );
    write('lib/format.ts', 'export const format = (text: string): string => text;\n');
    rmSync(path.join(root, 'lib/orphan.ts'));
    const clean = await check();
    expect(clean.stdout).toBe('');
    expect(clean.code).toBe(0);
  });
});
