/**
 * lib/server/engine-errors.ts: every error code the engine defines is decided once, as a
 * refusal with its API answer or as a fault (500), so a new engine error cannot slip through
 * a route as a 500 unnoticed; and real engine errors get their answers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobNotInStateError, QueueStateError, UnexpectedReplyError, ValidationError } from 'oxmq';
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

describe('engine error answers', () => {
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
