/**
 * The Lua travels inside the engine's JavaScript: a bundle of the engine, run by node from a
 * directory with no lua/ anywhere near it, adds and processes a job (every script it calls comes
 * from engine/scripts/registry.generated.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'rolldown';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';

const repoRoot = path.resolve(__dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENTRY = `
import { Queue, Worker } from ${JSON.stringify(path.join(repoRoot, 'engine'))};
const connection = { host: '127.0.0.1', port: Number(process.argv[2]), maxRetriesPerRequest: null };
const name = 'bundle-' + process.pid;
async function main() {
  const queue = new Queue(name, { connection });
  const done = new Promise((resolve) => {
    const worker = new Worker(name, async (job) => job.data.n * 2, { connection });
    worker.on('completed', (job, value) => resolve({ worker, id: job.id, value }));
  });
  await queue.add('double', { n: 21 });
  const { worker, id, value } = await done;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  process.stdout.write(JSON.stringify({ id, value }));
}
main().catch((error) => {
  process.stderr.write(String(error && error.stack || error));
  process.exit(1);
});
`;

describe('a bundled engine', () => {
  it('runs its scripts with no lua/ directory on disk', async () => {
    const entry = path.join(dir, 'entry.ts');
    writeFileSync(entry, ENTRY);
    const result = await build({
      input: entry,
      platform: 'node',
      cwd: repoRoot,
      external: (id: string) => !id.startsWith('.') && !path.isAbsolute(id),
      logLevel: 'warn',
      write: false,
      output: { format: 'cjs' },
    });
    const bundle = path.join(dir, 'engine-bundle.cjs');
    writeFileSync(bundle, result.output[0].code);

    const child = spawn(process.execPath, [bundle, String(inject('redisPort'))], {
      cwd: dir,
      env: { ...process.env, NODE_PATH: path.join(repoRoot, 'node_modules') },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ id: '1', value: 42 });
  });
});
