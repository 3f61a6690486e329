import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadProcessorModule, ProcessorLoadError } from '../../runner/processor-module';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-module-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, source: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, source);
  return file;
}

async function loadError(file: string): Promise<ProcessorLoadError> {
  const error = await loadProcessorModule(file).catch((thrown: unknown) => thrown);
  if (error instanceof ProcessorLoadError) return error;
  throw new Error(`expected a ProcessorLoadError, got ${String(error)}`);
}

describe('loadProcessorModule', () => {
  it('loads an ES module with queue, options and a default processor', async () => {
    const file = write(
      'emails.mjs',
      `export const queue = 'emails';
       export const options = { concurrency: 3, limiter: { max: 5, duration: 1000 }, sandbox: 'process',
         prefix: '{mail}', lockDuration: 10000, stalledInterval: 5000, maxStalledCount: 2,
         removeOnComplete: { age: 60, count: 10 }, removeOnFail: 100, metrics: { maxDataPoints: 60 },
         name: 'mailer', maxStartedAttempts: 4 };
       export default async function (job) { return job.data * 2; }`,
    );
    const loaded = await loadProcessorModule(file);
    expect(loaded).toMatchObject({
      file,
      queue: 'emails',
      options: { concurrency: 3, sandbox: 'process', prefix: '{mail}', name: 'mailer' },
    });
    expect(await loaded.process({ data: 21 } as never)).toBe(42);
  });

  it('loads CommonJS `module.exports = fn` with queue and options on the function', async () => {
    const file = write(
      'legacy.cjs',
      `module.exports = async (job) => 'cjs:' + job.data;
       module.exports.queue = 'legacy';
       module.exports.options = { concurrency: 2 };`,
    );
    const loaded = await loadProcessorModule(file);
    expect(loaded.queue).toBe('legacy');
    expect(loaded.options).toEqual({ concurrency: 2 });
    expect(await loaded.process({ data: 'x' } as never)).toBe('cjs:x');
  });

  it('reports a module that does not load, with its file and the error', async () => {
    const file = write('broken.mjs', 'export const queue = ;');
    const error = await loadError(file);
    expect(error.code).toBe('IMPORT_FAILED');
    expect(error.file).toBe(file);
    // The parser's wording depends on who compiles (vitest here, tsx in the runner).
    expect(error.reason).toMatch(/^could not be loaded: \w*Error: .*(Unexpected|Expected)/);
    expect(error.message).toBe(`${file}: ${error.reason}`);
  });

  it('requires a queue name and a default function', async () => {
    const error = await loadError(write('empty.mjs', 'export const other = 1;'));
    expect(error.code).toBe('INVALID_EXPORTS');
    expect(error.reason).toBe(
      'export const queue = "<name>" is required: a non-empty string without ":"; ' +
        'export default async function (job) { ... } is required',
    );
    const colon = await loadError(
      write('colon.mjs', "export const queue = 'a:b'; export default async () => 1;"),
    );
    expect(colon.reason).toMatch(/without ":"/);
  });

  it('lists every bad option, unknown keys included', async () => {
    const file = write(
      'options.mjs',
      `export const queue = 'q';
       export const options = { concurrency: 0, concurency: 2, sandbox: 'docker',
         limiter: { max: 1 }, removeOnFail: { ages: 1 } };
       export default async () => 1;`,
    );
    const error = await loadError(file);
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.reason.split('; ')).toEqual(
      expect.arrayContaining([
        'options.concurrency: must be an integer of at least 1',
        'options.concurency: unknown option',
        "options.sandbox: must be false, 'process' or 'thread'",
      ]),
    );
    expect(error.reason).toContain('options.limiter.duration');
    expect(error.reason).toContain('options.removeOnFail');
  });
});
