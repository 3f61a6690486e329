/**
 * The script registry (engine/scripts/registry.generated.ts): the committed module is what
 * scripts/generate-script-registry.ts writes from lua/ now, the generator refuses a header whose
 * KEYS do not match the file name, and the typed key builder puts every key where the header says.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inlineIncludes, QueueKeys, SCRIPTS, scriptKeys } from 'oxmq/internals';
import {
  REGISTRY_FILE,
  parseKeyNames,
  readIncludes,
  readScripts,
  renderRepositoryRegistry,
} from '../../scripts/script-registry';

const repoRoot = path.resolve(__dirname, '..', '..');

describe('committed registry', () => {
  it('is exactly what npm run scripts:generate writes from lua/ (run it after editing lua/)', async () => {
    const committed = readFileSync(path.join(repoRoot, REGISTRY_FILE), 'utf8');
    expect(committed).toBe(await renderRepositoryRegistry(repoRoot));
  });

  it('names numberOfKeys keys for every script, and holds its Lua with includes inlined', () => {
    const scripts = Object.values(SCRIPTS);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      expect(script.keys, script.name).toHaveLength(script.numberOfKeys);
      expect(new Set(script.keys).size, script.name).toBe(script.numberOfKeys);
      expect(script.lua, script.name).not.toMatch(/--- @include/);
    }
    expect(SCRIPTS.moveToActive.keys).toEqual([
      'wait',
      'active',
      'prioritized',
      'events',
      'limiter',
      'delayed',
      'meta',
      'pc',
      'marker',
    ]);
  });
});

describe('generator checks of a header', () => {
  const header = (keys: string) => `--[[\n  Test script.\n  ${keys}\n  Returns 1.\n]]\nreturn 1\n`;

  it('reads names in any layout, camelCased, without the Q prefix or the description', () => {
    const source = header(
      'KEYS[1] wait      KEYS[3] job hash (the job)\n  KEYS[2] Q meta  KEYS[4] waiting-children' +
        '\n  KEYS[5] job:dependencies   ARGV[1] id',
    );
    expect(parseKeyNames('x-5.lua', source, 5)).toEqual([
      'wait',
      'meta',
      'jobHash',
      'waitingChildren',
      'jobDependencies',
    ]);
  });

  it('refuses fewer or more keys than the file name counts', () => {
    const two = header('KEYS[1] wait  KEYS[2] meta');
    expect(() => parseKeyNames('x-3.lua', two, 3)).toThrow(
      /x-3\.lua: the header names KEYS\[1, 2\], but the file name says 3 key/,
    );
    expect(() => parseKeyNames('x-1.lua', two, 1)).toThrow(/says 1 key/);
  });

  it('refuses a list that is not numbered 1..N', () => {
    expect(() => parseKeyNames('x-2.lua', header('KEYS[1] wait  KEYS[3] meta'), 2)).toThrow(
      /KEYS\[1, 3\]/,
    );
    expect(() => parseKeyNames('x-2.lua', header('KEYS[0] wait  KEYS[1] meta'), 2)).toThrow(
      /KEYS\[0, 1\]/,
    );
  });

  it('refuses a key described twice, two keys of one name, a key without a name, no header', () => {
    expect(() => parseKeyNames('x-1.lua', header('KEYS[1] wait  KEYS[1] meta'), 1)).toThrow(
      /KEYS\[1\] is described twice/,
    );
    expect(() => parseKeyNames('x-2.lua', header('KEYS[1] wait  KEYS[2] wait'), 2)).toThrow(
      /two keys are named wait/,
    );
    expect(() => parseKeyNames('x-1.lua', header("KEYS[1] the state's key"), 1)).toThrow(
      /KEYS\[1\] has no name/,
    );
    expect(() => parseKeyNames('x-1.lua', 'return KEYS[1]\n', 1)).toThrow(/no --\[\[ \.\.\. \]\]/);
  });
});

describe('generator on a lua/ directory', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  function luaDir(files: Record<string, string>): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmq-lua-'));
    dirs.push(dir);
    mkdirSync(path.join(dir, 'includes'));
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
    return dir;
  }

  it('inlines each include once, nested ones too', () => {
    const dir = luaDir({
      'includes/a.lua': '--- @include "b"\nlocal a = 1',
      'includes/b.lua': 'local b = 2',
      'twice-1.lua': '--[[\n  KEYS[1] wait\n]]\n--- @include "a"\n--- @include "b"\nreturn 1\n',
    });
    const [script] = readScripts(dir);
    expect(script).toMatchObject({ name: 'twice', numberOfKeys: 1, keys: ['wait'] });
    expect(inlineIncludes(script!.body, readIncludes(dir))).toBe(
      '--[[\n  KEYS[1] wait\n]]\nlocal b = 2\nlocal a = 1\n\nreturn 1\n',
    );
  });

  it('refuses an include that lua/includes/ does not have', () => {
    const dir = luaDir({
      'includes/a.lua': '--- @include "gone"\nlocal a = 1',
      'uses-1.lua': '--[[\n  KEYS[1] wait\n]]\nreturn 1\n',
    });
    expect(() => readScripts(dir)).toThrow(/includes\/a\.lua: includes "gone"/);
  });

  it('fails loudly on a script whose header disagrees with its file name', () => {
    const dir = luaDir({ 'bad-2.lua': '--[[\n  KEYS[1] wait\n]]\nreturn 1\n' });
    expect(() => readScripts(dir)).toThrow(/bad-2\.lua: the header names KEYS\[1\]/);
  });

  it('fails on a file not named <command>-<numberOfKeys>.lua', () => {
    const dir = luaDir({ 'noCount.lua': '--[[\n  KEYS[1] wait\n]]\nreturn 1\n' });
    expect(() => readScripts(dir)).toThrow(/noCount\.lua: a script is named/);
  });
});

describe('scriptKeys', () => {
  const k = new QueueKeys('bull', 'orders');

  it('takes the queue keys from QueueKeys, in the header order', () => {
    expect(scriptKeys('moveStalledJobsToWait', k)).toEqual([
      k.stalled,
      k.wait,
      k.active,
      k.stalledCheck,
      k.meta,
      k.marker,
      k.events,
      k.repeat,
    ]);
    expect(scriptKeys('getJobsInStates', k)).toEqual(['bull:orders:']);
  });

  it('puts the keys that are not queue keys where the header names them', () => {
    expect(
      scriptKeys('moveToFinished', k, {
        target: k.failed,
        jobHash: k.job('7'),
        metrics: k.metrics('failed'),
      }),
    ).toEqual([
      k.wait,
      k.active,
      k.prioritized,
      k.events,
      k.stalled,
      k.limiter,
      k.delayed,
      k.meta,
      k.pc,
      k.marker,
      'bull:orders:failed',
      'bull:orders:7',
      'bull:orders:metrics:failed',
    ]);
    expect(scriptKeys('reprocessJob', k, { jobHash: k.job('3'), state: k.completed })).toEqual([
      'bull:orders:3',
      k.events,
      'bull:orders:completed',
      k.wait,
      k.meta,
      k.active,
      k.marker,
      k.prioritized,
      k.pc,
    ]);
  });
});
