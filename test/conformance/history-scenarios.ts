/**
 * The timing history (TimingHistoryStore): counts add up and samples replace each other, per
 * minute and per hour, and a read returns the fields of the slots asked for.
 */
import { expect } from 'vitest';
import type { Scenario } from './harness';

const RETENTION = { minutesKeptMs: 86_400_000, hoursKeptMs: 30 * 86_400_000 };

export const historyScenarios: Scenario[] = [
  {
    title: 'adds counts and sets samples by minute and by hour, and reads a window back',
    covers: ['TimingHistoryStore.write', 'TimingHistoryStore.read'],
    run: async ({ made }) => {
      const { history } = made.queue;
      const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
      const [m1, m2] = [hour + 60_000, hour + 120_000];
      await history.write(
        [
          { at: m1 + 5, series: 'c', name: '', value: 2 },
          { at: m2 + 5, series: 'c', name: '', value: 3 },
        ],
        [{ at: m1, series: 'b', name: 'wait', value: 7 }],
        RETENTION,
      );
      await history.write(
        [{ at: m1 + 9, series: 'c', name: '', value: 1 }],
        [{ at: m2, series: 'b', name: 'wait', value: 4 }],
        RETENTION,
      );
      expect(await history.read('minute', hour, hour + 3_600_000)).toEqual({
        [`${m1}|c|`]: 3,
        [`${m2}|c|`]: 3,
        [`${m1}|b|wait`]: 7,
        [`${m2}|b|wait`]: 4,
      });
      // One minute only.
      expect(await history.read('minute', m2, m2 + 60_000)).toEqual({
        [`${m2}|c|`]: 3,
        [`${m2}|b|wait`]: 4,
      });
      // The hour sums the counts and keeps the last sample.
      expect(await history.read('hour', hour, hour + 3_600_000)).toEqual({
        [`${hour}|c|`]: 6,
        [`${hour}|b|wait`]: 4,
      });
    },
  },
];
