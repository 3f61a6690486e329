/**
 * engine/admin/search-prefilter.ts: the cheap look at stored fields may only rule out jobs the
 * full matcher (job-search.ts jobMatcher, on the redacted view) would not keep. Checked on
 * hand-picked traps (escapes, redaction markers, numbers, embedded JSON, case) and on thousands
 * of generated jobs and queries; and it must actually rule out the plain non-matches it is for.
 */
import { describe, expect, it } from 'vitest';
import { jobMatcher, type JobFilter } from 'oxmq/admin';
import { searchPrefilter, telltaleWords } from 'oxmq/internals';
import { Job } from 'oxmq/internals';
import { queueHandle } from 'oxmq/internals';
import { rawClient } from '../helpers/redis';

// A Job built from stored fields needs a queue object; nothing here talks to Redis.
const client = rawClient();
const queue = queueHandle(client, 'bull', 'prefilter');

function agree(filter: JobFilter, storedData: string, name = 'job'): void {
  const fields = { name, data: storedData, timestamp: '1' };
  const job = Job.fromHash(queue, '1', fields);
  const full = jobMatcher(filter)(job);
  const quick = searchPrefilter(filter)(fields);
  if (full && !quick) {
    throw new Error(`prefilter ruled out a match: ${JSON.stringify(filter)} on ${storedData}`);
  }
}

describe('the telltale words', () => {
  it('are the ASCII letter runs of two or more, lower-cased, that no redaction marker holds', () => {
    expect(telltaleWords('needle-User42')).toEqual(['needle', 'user']);
    expect(telltaleWords('ID-x-9')).toEqual(['id']);
    expect(telltaleWords('a1b2')).toEqual([]);
    expect(telltaleWords('12345')).toEqual([]);
    expect(telltaleWords('"password":"[redacted]"')).toEqual(['password']);
    expect(telltaleWords('too deep')).toEqual([]);
  });
});

describe('never rules out a match', () => {
  const traps: [JobFilter, string][] = [
    [{ mode: 'text', query: 'Hello' }, '{"greeting":"\\u0048ello"}'],
    [{ mode: 'text', query: 'ABC' }, '{"s":"{\\"k\\":\\"\\\\u0041BC\\"}"}'],
    [{ mode: 'text', query: '"password":"[redacted]"' }, '{"password":"x"}'],
    [{ mode: 'text', query: 'redacted' }, '{"token":"abc"}'],
    [{ mode: 'text', query: 'too deep' }, JSON.stringify(nested(40))],
    [{ mode: 'text', query: '1000' }, '{"n":1e3}'],
    [{ mode: 'text', query: 'e+21' }, '{"n":1000000000000000000000}'],
    [{ mode: 'text', query: 'NULL' }, 'null'],
    [{ mode: 'text', query: '"a":1' }, '{ "a" : 1 }'],
    [{ mode: 'text', query: 'TRUE' }, '{"ok":true}'],
    [{ mode: 'text', query: 'kelvin' }, '{"unit":"\u212Aelvin"}'],
    [
      { mode: 'path', path: 'user.email', query: 'ADA@example.com' },
      '{"user":{"email":"ADA@example.com"}}',
    ],
    [
      { mode: 'path', path: 'user', query: '{"password":"[redacted]"}' },
      '{"user":{"password":"p"}}',
    ],
    [{ mode: 'path', path: 'n', query: '' }, '{"n":1}'],
    [{ mode: 'text', query: 'dsn' }, '{"conn":"redis://:pw@host"}'],
    [{ mode: 'text', query: 'x' }, 'not json at all x'],
  ];
  it.each(traps)('%j on %s', (filter, data) => agree(filter, data));

  it('agrees with the full matcher on thousands of generated jobs and queries', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const words = [
      'Ada',
      'needle',
      'password',
      'token',
      'redacted',
      'e',
      'null',
      'true',
      'X',
      'é',
      'ß',
      'İ',
    ];
    const value = (depth: number): unknown => {
      const r = random();
      if (depth > 2 || r < 0.3)
        return pick(words) + (random() < 0.5 ? String(Math.floor(random() * 100)) : '');
      if (r < 0.45) return Math.floor(random() * 1e6) / (random() < 0.5 ? 1 : 7);
      if (r < 0.55) return pick([true, false, null]);
      if (r < 0.7) return [value(depth + 1), value(depth + 1)];
      return { [pick(words)]: value(depth + 1), [pick(words)]: value(depth + 1) };
    };
    let matched = 0;
    for (let i = 0; i < 3_000; i++) {
      const data = value(0);
      const stored = random() < 0.2 ? JSON.stringify(data, null, 1) : JSON.stringify(data);
      const text = JSON.stringify(data);
      const from = Math.floor(random() * text.length);
      const query =
        random() < 0.6 ? text.slice(from, from + 1 + Math.floor(random() * 8)) : pick(words);
      const filter: JobFilter = { mode: 'text', query };
      if (jobMatcher(filter)(Job.fromHash(queue, '1', { name: 'job', data: stored }))) matched += 1;
      agree(filter, stored);
    }
    // The generated queries are mostly pieces of the data: many of them do match.
    expect(matched).toBeGreaterThan(500);
  });
});

describe('rules out plain non-matches', () => {
  it('without parsing a job whose data lacks the query word', () => {
    const quick = searchPrefilter({ mode: 'text', query: 'needle-user' });
    expect(quick({ data: '{"user":"u1","pad":"xxxx"}' })).toBe(false);
    expect(quick({ data: '{"user":"NEEDLE-user"}' })).toBe(true);
    // Every word counts: a key every job has does not let the others through.
    const account = searchPrefilter({ mode: 'text', query: 'needle-account' });
    expect(account({ data: '{"account":"acct-1"}' })).toBe(false);
    expect(account({ data: '{"account":"needle-account"}' })).toBe(true);
    // An escape could spell the word: such a job goes to the full matcher.
    expect(quick({ data: '{"user":"\\u006eeedle"}' })).toBe(true);
  });

  it('by name, exactly as the name search compares', () => {
    const quick = searchPrefilter({ mode: 'name', query: 'Send' });
    expect(quick({ name: 'email.send' })).toBe(true);
    expect(quick({ name: 'email.receive' })).toBe(false);
  });
});

function nested(depth: number): unknown {
  return depth === 0 ? 'bottom' : { d: nested(depth - 1) };
}
