/**
 * The overview's sort and name filter, kept in the URL query (`?sort=problems&q=mail`) so a view
 * can be shared. Pure functions: the page component only wires them to the router.
 */
import type { QueueOverview, QueueProblemSeverity } from '@/lib/api-types';

export const QUEUE_SORTS = ['name', 'problems', 'backlog'] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];

export const QUEUE_SORT_LABELS: Record<QueueSort, string> = {
  name: 'Name',
  problems: 'Problems first',
  backlog: 'Backlog (waiting)',
};

export interface QueueView {
  sort: QueueSort;
  /** Case-insensitive substring of `prefix:name`; empty shows every queue. */
  q: string;
}

const DEFAULT_SORT: QueueSort = 'name';

export function parseQueueView(params: { get(name: string): string | null }): QueueView {
  const sort = params.get('sort');
  return {
    sort: (QUEUE_SORTS as readonly string[]).includes(sort ?? '')
      ? (sort as QueueSort)
      : DEFAULT_SORT,
    q: (params.get('q') ?? '').slice(0, 200),
  };
}

/** The query string of a view, without defaults, so the plain overview keeps its plain URL. */
export function queueViewQuery(view: QueueView): string {
  const params = new URLSearchParams();
  if (view.sort !== DEFAULT_SORT) params.set('sort', view.sort);
  if (view.q !== '') params.set('q', view.q);
  const query = params.toString();
  return query === '' ? '' : `?${query}`;
}

const SEVERITY_RANK: Record<QueueProblemSeverity, number> = { critical: 0, warning: 1, info: 2 };

/** Lower is worse: the most severe problem's rank, or past every rank for a healthy queue. */
function worstRank(queue: QueueOverview): number {
  return Math.min(3, ...queue.problems.map((problem) => SEVERITY_RANK[problem.severity]));
}

function byName(a: QueueOverview, b: QueueOverview): number {
  return a.name.localeCompare(b.name) || a.prefix.localeCompare(b.prefix);
}

function backlog(queue: QueueOverview): number {
  return queue.counts.waiting + queue.counts.prioritized;
}

export function applyQueueView(queues: readonly QueueOverview[], view: QueueView): QueueOverview[] {
  const needle = view.q.trim().toLowerCase();
  const shown = needle
    ? queues.filter((queue) => `${queue.prefix}:${queue.name}`.toLowerCase().includes(needle))
    : [...queues];
  switch (view.sort) {
    case 'problems':
      return shown.sort(
        (a, b) =>
          worstRank(a) - worstRank(b) || b.problems.length - a.problems.length || byName(a, b),
      );
    case 'backlog':
      return shown.sort((a, b) => backlog(b) - backlog(a) || byName(a, b));
    default:
      return shown.sort(byName);
  }
}
