import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverProcessorFiles, isProcessorFileName } from '../../runner/discover';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'oxmq-discover-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('processor discovery', () => {
  it('takes code files only: no declarations, tests, private helpers or other files', () => {
    const taken = ['a.ts', 'b.mts', 'c.cts', 'd.js', 'e.mjs', 'f.cjs', 'my.queue.ts'];
    const skipped = [
      'types.d.ts',
      'x.d.mts',
      'a.test.ts',
      'b.test.mjs',
      '_shared.ts',
      '.hidden.ts',
      'README.md',
      'data.json',
      'a.tsx',
    ];
    for (const name of taken) expect(isProcessorFileName(name), name).toBe(true);
    for (const name of skipped) expect(isProcessorFileName(name), name).toBe(false);
  });

  it('lists the top level of each folder in order, sorted, following symlinks to files', () => {
    const one = path.join(root, 'one');
    const two = path.join(root, 'two');
    mkdirSync(path.join(one, 'nested.ts'), { recursive: true });
    mkdirSync(path.join(one, 'sub'));
    mkdirSync(two);
    for (const name of ['b.ts', 'a.js', '_helper.ts', 'README.md'])
      writeFileSync(path.join(one, name), '');
    writeFileSync(path.join(one, 'sub', 'deep.ts'), '');
    writeFileSync(path.join(root, 'target.ts'), '');
    symlinkSync(path.join(root, 'target.ts'), path.join(two, 'linked.ts'));
    symlinkSync(path.join(one, 'sub'), path.join(two, 'dir-link.ts'));

    expect(discoverProcessorFiles([two, one, path.join(root, 'missing')])).toEqual({
      files: [path.join(two, 'linked.ts'), path.join(one, 'a.js'), path.join(one, 'b.ts')],
      unreadable: [{ folder: path.join(root, 'missing'), error: 'processors folder not found' }],
    });
  });

  it('lists a file once when a folder is given twice', () => {
    writeFileSync(path.join(root, 'a.ts'), '');
    expect(discoverProcessorFiles([root, root]).files).toEqual([path.join(root, 'a.ts')]);
  });
});
