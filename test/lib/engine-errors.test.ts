/**
 * lib/server/engine-errors.ts: every error code the engine defines is decided once, as a
 * refusal with its API answer or as a fault (500), so a new engine error cannot slip through
 * a route as a 500 unnoticed; and real engine errors get their answers. Codes are found twice:
 * in the source (every `readonly code = '…'`) and at run time (every OxmqError class the engine's
 * modules export, and every typed error a script's negative reply becomes), so neither a class
 * that sets its code another way nor a new script reply escapes the table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as engineIndex from 'oxmq';
import * as adminIndex from 'oxmq/admin';
import * as internals from 'oxmq/internals';
import { scriptError } from 'oxmq/internals';
import {
  JobNotInStateError,
  OxmqError,
  QueueStateError,
  UnexpectedReplyError,
  ValidationError,
} from 'oxmq';
import { ENGINE_FAULTS, ENGINE_REFUSALS, engineRefusal } from '../../lib/server/engine-errors';

function engineCodes(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return engineCodes(file);
    if (!entry.name.endsWith('.ts')) return [];
    return [...readFileSync(file, 'utf8').matchAll(/readonly code = '([A-Z_]+)'/g)].map(
      (match) => match[1]!,
    );
  });
}

/** The code of every OxmqError class the modules export, from an instance of each. */
function exportedCodes(modules: Record<string, unknown>[]): Map<string, string> {
  const codes = new Map<string, string>();
  for (const module of modules) {
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'function' || !(value.prototype instanceof OxmqError)) continue;
      // Every constructor takes a string first (or nothing); the code does not depend on it.
      const error = new (value as new (message: string) => OxmqError)('probe');
      codes.set(name, error.code);
    }
  }
  return codes;
}

describe('engine error answers', () => {
  it('decide the code of every OxmqError class the engine exports, and of every script reply', () => {
    const decided = new Set([...Object.keys(ENGINE_REFUSALS), ...ENGINE_FAULTS]);
    const classes = exportedCodes([engineIndex, adminIndex, internals]);
    expect(classes.size).toBeGreaterThan(25);
    const undecided = [...classes].filter(([, code]) => !decided.has(code));
    expect(undecided, 'OxmqError classes whose code lib/server/engine-errors.ts lacks').toEqual([]);
    // bullmq's script replies -1..-9 and anything else (error-codes.ts's default).
    for (let reply = -12; reply <= -1; reply++) {
      const error = scriptError(reply, 'job-1', 'moveToFinished');
      expect(decided.has(error.code), `script reply ${reply} (${error.code})`).toBe(true);
    }
  });

  it('decide every code the engine defines, each exactly once', () => {
    const codes = [...new Set(engineCodes(path.resolve('engine')))].sort();
    expect(codes.length).toBeGreaterThan(20);
    const decided = [...Object.keys(ENGINE_REFUSALS), ...ENGINE_FAULTS];
    expect(new Set(decided).size).toBe(decided.length);
    expect([...decided].sort()).toEqual(codes);
  });

  it('answer refusals with their status and the engine message, faults with nothing', () => {
    const obliterate = engineRefusal(
      new QueueStateError('Cannot obliterate queue with active jobs'),
    );
    expect(obliterate).toMatchObject({
      status: 409,
      code: 'CONFLICT',
      message: 'Cannot obliterate queue with active jobs',
    });
    expect(engineRefusal(new ValidationError('bad cron'))).toMatchObject({
      status: 422,
      code: 'INVALID_INPUT',
    });
    expect(engineRefusal(new JobNotInStateError('x'))).toMatchObject({ status: 409 });
    expect(engineRefusal(new UnexpectedReplyError('x'))).toBeNull();
    expect(engineRefusal(new Error('plain'))).toBeNull();
    expect(engineRefusal('not an error')).toBeNull();
  });
});
