/** The overview's problem rules, from already-read numbers (no Redis). */
import { describe, expect, it } from 'vitest';
import { queueProblems, type ProblemInput } from 'oxmq/admin';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const healthy: ProblemInput = {
  counts: { waiting: 0, prioritized: 0 },
  paused: false,
  rateLimited: false,
  rateLimitTtlMs: 0,
  workerCount: 1,
  oldestWaitingAt: null,
  failedMetrics: null,
};
const kinds = (input: Partial<ProblemInput>) =>
  queueProblems({ ...healthy, ...input }, { now: NOW }).map((problem) => problem.kind);

describe('queueProblems', () => {
  it('finds nothing wrong with an idle queue that has a worker', () => {
    expect(kinds({})).toEqual([]);
  });

  it('says waiting (or prioritized) jobs have no worker, but not for an empty queue', () => {
    expect(kinds({ workerCount: 0 })).toEqual([]);
    expect(kinds({ workerCount: 0, counts: { waiting: 0, prioritized: 2 } })).toEqual([
      'no-worker',
    ]);
    const [problem] = queueProblems(
      { ...healthy, workerCount: 0, counts: { waiting: 1_200, prioritized: 0 } },
      { now: NOW },
    );
    expect(problem).toEqual({
      kind: 'no-worker',
      severity: 'critical',
      message: '1,200 jobs wait but no worker is connected.',
    });
  });

  it('reports paused and rate-limited, most severe first', () => {
    expect(
      kinds({
        paused: true,
        rateLimited: true,
        rateLimitTtlMs: 1_500,
        workerCount: 0,
        counts: { waiting: 1, prioritized: 0 },
      }),
    ).toEqual(['no-worker', 'paused', 'rate-limited']);
  });

  it('reports an old backlog from the oldest waiting job only past the threshold', () => {
    expect(kinds({ oldestWaitingAt: NOW - 9 * 60_000 })).toEqual([]);
    expect(kinds({ oldestWaitingAt: NOW - 30 * 60_000 })).toEqual(['old-backlog']);
    expect(
      queueProblems(
        { ...healthy, oldestWaitingAt: NOW - 3 * 60_000 },
        { now: NOW, oldBacklogMinutes: 2 },
      )[0]?.message,
    ).toBe('The oldest waiting job was added 3 min ago (over 2 min).');
  });

  it('reports a failure spike: the last 15 minutes above the hour before, and not a trickle', () => {
    const minutes = (recent: number, before: number) => {
      const newestFirst = new Array<number>(74).fill(0);
      newestFirst[0] = recent;
      newestFirst[20] = before;
      return { failedMetrics: { newestFirst, pending: 0 } };
    };
    expect(kinds(minutes(10, 3))).toEqual(['failure-spike']);
    expect(kinds(minutes(10, 10))).toEqual([]);
    expect(kinds(minutes(2, 0))).toEqual([]);
    expect(kinds({ failedMetrics: { newestFirst: [], pending: 6 } })).toEqual(['failure-spike']);
    expect(kinds({ failedMetrics: { newestFirst: [], pending: 0 } })).toEqual([]);
  });
});
