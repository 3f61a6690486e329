import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  booleanField,
  commaListField,
  hostField,
  logLevelField,
  optionalRedisUrlField,
  portField,
  positiveIntMsField,
  prefixField,
  redisUrlField,
} from '../../config/fields';

/** Parses one raw value (undefined = unset) and returns the value or the issue messages. */
function parse<T extends z.ZodType>(field: T, raw: string | undefined) {
  const result = field.safeParse(raw);
  return result.success
    ? { ok: true as const, value: result.data as z.output<T> }
    : { ok: false as const, messages: result.error.issues.map((issue) => issue.message) };
}

describe('portField', () => {
  it('parses 0..65535 and defaults when unset', () => {
    expect(parse(portField(3001), undefined)).toEqual({ ok: true, value: 3001 });
    expect(parse(portField(3001), '0')).toEqual({ ok: true, value: 0 });
    expect(parse(portField(3001), ' 65535 ')).toEqual({ ok: true, value: 65535 });
  });

  it.each(['abc', '65536', '-1', '3.5', '80x'])('rejects %j', (raw) => {
    expect(parse(portField(3001), raw)).toEqual({
      ok: false,
      messages: ['must be a port number from 0 to 65535'],
    });
  });
});

describe('redisUrlField', () => {
  it('accepts redis:// and rediss:// URLs', () => {
    expect(parse(redisUrlField('redis://127.0.0.1:6379'), undefined)).toEqual({
      ok: true,
      value: 'redis://127.0.0.1:6379',
    });
    expect(parse(redisUrlField('redis://x'), 'rediss://user:pw@host:6380/2')).toEqual({
      ok: true,
      value: 'rediss://user:pw@host:6380/2',
    });
  });

  it.each(['http://host:6379', 'localhost:6379', 'redis://', 'redis://a b'])(
    'rejects %j',
    (raw) => {
      const result = parse(redisUrlField('redis://x'), raw);
      expect(result.ok).toBe(false);
      expect(result.ok ? [] : result.messages).toEqual([
        'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379',
      ]);
    },
  );

  it('the optional variant stays unset', () => {
    expect(parse(optionalRedisUrlField(), undefined)).toEqual({ ok: true, value: undefined });
    expect(parse(optionalRedisUrlField(), 'nope').ok).toBe(false);
  });
});

describe('booleanField', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('parses %j as %j', (raw, value) => {
    expect(parse(booleanField(false), raw)).toEqual({ ok: true, value });
  });

  it('defaults when unset and rejects anything else', () => {
    expect(parse(booleanField(true), undefined)).toEqual({ ok: true, value: true });
    expect(parse(booleanField(true), 'yes')).toEqual({
      ok: false,
      messages: ['must be true, false, 1 or 0'],
    });
  });
});

describe('positiveIntMsField', () => {
  it('parses whole milliseconds > 0', () => {
    expect(parse(positiveIntMsField(25_000), undefined)).toEqual({ ok: true, value: 25_000 });
    expect(parse(positiveIntMsField(25_000), '1500')).toEqual({ ok: true, value: 1500 });
  });

  it.each(['0', '-5', '1.5', '1s', ''])('rejects %j', (raw) => {
    expect(parse(positiveIntMsField(1), raw)).toEqual({
      ok: false,
      messages: ['must be a whole number of milliseconds greater than 0'],
    });
  });
});

describe('logLevelField', () => {
  it('parses pino levels in any case and defaults to info', () => {
    expect(parse(logLevelField(), undefined)).toEqual({ ok: true, value: 'info' });
    expect(parse(logLevelField(), 'WARN')).toEqual({ ok: true, value: 'warn' });
    expect(parse(logLevelField('error'), 'silent')).toEqual({ ok: true, value: 'silent' });
  });

  it('lists the levels when the value is not one', () => {
    expect(parse(logLevelField(), 'verbose')).toEqual({
      ok: false,
      messages: ['must be one of trace, debug, info, warn, error, fatal, silent'],
    });
  });
});

describe('commaListField', () => {
  it('splits, trims and drops empty items', () => {
    expect(parse(commaListField(['processors']), undefined)).toEqual({
      ok: true,
      value: ['processors'],
    });
    expect(parse(commaListField([]), ' a, b ,,c ')).toEqual({ ok: true, value: ['a', 'b', 'c'] });
  });

  it('needs at least one item and checks each item', () => {
    expect(parse(commaListField(['x']), ' , ')).toEqual({
      ok: false,
      messages: ['list at least one value'],
    });
    const noSpaces = { test: (item: string) => !/\s/.test(item), message: 'has a space' };
    expect(parse(commaListField([], noSpaces), 'a,b c,d e')).toEqual({
      ok: false,
      messages: ['"b c" has a space', '"d e" has a space'],
    });
  });
});

describe('prefixField and hostField', () => {
  it('accept prefixes with hash tags and refuse glob characters', () => {
    expect(parse(prefixField(), undefined)).toEqual({ ok: true, value: 'bull' });
    expect(parse(prefixField(), '{payments}')).toEqual({ ok: true, value: '{payments}' });
    expect(parse(prefixField(), 'bu*ll').ok).toBe(false);
    expect(parse(prefixField(), 'a b').ok).toBe(false);
  });

  it('accept host names and addresses', () => {
    expect(parse(hostField('0.0.0.0'), undefined)).toEqual({ ok: true, value: '0.0.0.0' });
    expect(parse(hostField('0.0.0.0'), '::1')).toEqual({ ok: true, value: '::1' });
    expect(parse(hostField('0.0.0.0'), 'http://x').ok).toBe(false);
  });
});
