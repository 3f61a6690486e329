/** The overview's sort, filter and URL query (components/queues/queue-view.ts), and the one number format. */
import { describe, expect, it } from 'vitest';
import { applyQueueView, parseQueueView, queueViewQuery } from '../../components/queues/queue-view';
import { formatCount } from '../../lib/format-number';
import type { QueueOverview, QueueProblem } from '../../lib/api-types';

function queue(name: string, waiting: number, problems: QueueProblem['severity'][] = []) {
  return {
    prefix: 'bull',
    name,
    counts: { waiting, prioritized: 0 },
    problems: problems.map((severity) => ({ kind: 'paused', severity, message: '' })),
  } as unknown as QueueOverview;
}

const queues = [
  queue('mail', 5),
  queue('billing', 1_200, ['warning']),
  queue('audit', 0, ['info', 'info']),
  queue('search', 40, ['critical']),
];
const names = (list: QueueOverview[]) => list.map((q) => q.name);

describe('queue view', () => {
  it('sorts by name, by problems (most severe first) and by backlog', () => {
    expect(names(applyQueueView(queues, { sort: 'name', q: '' }))).toEqual([
      'audit',
      'billing',
      'mail',
      'search',
    ]);
    expect(names(applyQueueView(queues, { sort: 'problems', q: '' }))).toEqual([
      'search',
      'billing',
      'audit',
      'mail',
    ]);
    expect(names(applyQueueView(queues, { sort: 'backlog', q: '' }))).toEqual([
      'billing',
      'search',
      'mail',
      'audit',
    ]);
  });

  it('filters by a case-insensitive text in prefix:name', () => {
    expect(names(applyQueueView(queues, { sort: 'name', q: 'IL' }))).toEqual(['billing', 'mail']);
    expect(names(applyQueueView(queues, { sort: 'name', q: 'bull:se' }))).toEqual(['search']);
  });

  it('reads and writes the URL query, leaving defaults out', () => {
    const read = (query: string) => parseQueueView(new URLSearchParams(query));
    expect(read('')).toEqual({ sort: 'name', q: '' });
    expect(read('sort=bogus&q=mail')).toEqual({ sort: 'name', q: 'mail' });
    expect(queueViewQuery(read('sort=problems&q=a b'))).toBe('?sort=problems&q=a+b');
    expect(queueViewQuery({ sort: 'name', q: '' })).toBe('');
  });

  it('formats counts with en-US thousands separators', () => {
    expect([0, 999, 1_200, 1_234_567].map(formatCount)).toEqual(['0', '999', '1,200', '1,234,567']);
  });
});
