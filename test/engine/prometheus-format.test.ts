/**
 * engine/admin/redis/prometheus' pure parts: the text-format writer (escaping, special values, one
 * HELP/TYPE per family) and the last-closed-minute arithmetic over bullmq's metrics layout.
 */
import { describe, expect, it } from 'vitest';
import { lastClosedMinuteCount } from 'oxmq/internals';
import { escapeHelp, escapeLabelValue, formatValue, renderFamilies } from 'oxmq/internals';

describe('text format', () => {
  it('escapes backslash, double quote and line feed in label values, nothing else', () => {
    expect(escapeLabelValue('a\\b"c\nd\te{}=,')).toBe('a\\\\b\\"c\\nd\te{}=,');
    expect(escapeHelp('a\\b"c\nd')).toBe('a\\\\b"c\\nd');
  });

  it('spells infinities and NaN as Prometheus does, numbers as JavaScript does', () => {
    expect([Infinity, -Infinity, NaN, 0, -0, 3, 1.5, 1e21, 0.000001].map(formatValue)).toEqual([
      '+Inf',
      '-Inf',
      'NaN',
      '0',
      '0',
      '3',
      '1.5',
      '1e+21',
      '0.000001',
    ]);
  });

  it('writes HELP and TYPE once per family, samples together, and skips empty families', () => {
    const text = renderFamilies([
      {
        name: 'a_total',
        help: 'Line one\nline two',
        type: 'counter',
        samples: [
          { labels: [['queue', 'x"y']], value: 1 },
          {
            labels: [
              ['prefix', 'p'],
              ['queue', 'z'],
            ],
            value: Infinity,
          },
        ],
      },
      { name: 'empty', help: 'never shown', type: 'gauge', samples: [] },
      { name: 'b', help: 'B.', type: 'gauge', samples: [{ labels: [], value: NaN }] },
    ]);
    expect(text).toBe(
      [
        '# HELP a_total Line one\\nline two',
        '# TYPE a_total counter',
        'a_total{queue="x\\"y"} 1',
        'a_total{prefix="p", queue="z"} +Inf',
        '# HELP b B.',
        '# TYPE b gauge',
        'b NaN',
      ].join('\n'),
    );
  });
});

describe('last closed minute', () => {
  const minute = 60_000;
  const pushedAt = 1_000 * minute + 15_000; // prevTS: 15 s into minute 1000
  const reading = { count: 12, prevTS: pushedAt, prevCount: 7, head: 4 };

  it('is the head of the data list while the push minute is the current one', () => {
    expect(lastClosedMinuteCount(reading, 1_000 * minute + 59_999)).toBe(4);
    expect(lastClosedMinuteCount({ ...reading, head: null }, 1_000 * minute + 20_000)).toBe(0);
  });

  it('is the count since the push in the minute after it, and 0 later', () => {
    expect(lastClosedMinuteCount(reading, 1_001 * minute)).toBe(5);
    expect(lastClosedMinuteCount(reading, 1_002 * minute)).toBe(0);
  });

  it('is 0 for a queue whose metrics were never written', () => {
    expect(
      lastClosedMinuteCount({ count: 0, prevTS: 0, prevCount: 0, head: null }, Date.now()),
    ).toBe(0);
  });

  it("takes the head when the writer's clock is ahead of the reader's", () => {
    expect(lastClosedMinuteCount(reading, 999 * minute)).toBe(4);
  });
});
