/**
 * The one react-query key factory. Keys are hierarchical, so a mutation can
 * invalidate a whole branch: `queryKeys.queues.all` covers the list and every queue.
 */
export const queryKeys = {
  queues: {
    all: ['queues'] as const,
    list: (page: number, pageSize: number) => ['queues', 'list', { page, pageSize }] as const,
    detail: (prefix: string, name: string) => ['queues', 'detail', prefix, name] as const,
  },
  // ---- queue page: under queues.all (but search), so mutations refresh it ----
  queuePage: {
    all: (prefix: string, name: string) => ['queues', 'page', prefix, name] as const,
    jobs: (prefix: string, name: string, state: string, page: number, pageSize: number) =>
      ['queues', 'page', prefix, name, 'jobs', { state, page, pageSize }] as const,
    // Not under queues.all: a search is a costly scan, re-run only when the user asks.
    search: (prefix: string, name: string, search: Record<string, string | number>) =>
      ['queue-search', prefix, name, search] as const,
    limits: (prefix: string, name: string) => ['queues', 'page', prefix, name, 'limits'] as const,
    diagnosis: (prefix: string, name: string) =>
      ['queues', 'page', prefix, name, 'diagnosis'] as const,
    heartbeats: (prefix: string, name: string) =>
      ['queues', 'page', prefix, name, 'heartbeats'] as const,
    schedulers: (prefix: string, name: string, page?: number) =>
      [
        'queues',
        'page',
        prefix,
        name,
        'schedulers',
        ...(page === undefined ? [] : [page]),
      ] as const,
    groups: (prefix: string, name: string, cursor?: string) =>
      [
        'queues',
        'page',
        prefix,
        name,
        'groups',
        ...(cursor === undefined ? [] : [cursor]),
      ] as const,
    groupJobs: (prefix: string, name: string, groupId: string, page: number) =>
      ['queues', 'page', prefix, name, 'group-jobs', groupId, page] as const,
  },
  // ---- job page and flows page: under queues.all as well ----
  job: {
    all: (prefix: string, name: string, id: string) => ['queues', 'job', prefix, name, id] as const,
    detail: (prefix: string, name: string, id: string) =>
      ['queues', 'job', prefix, name, id, 'detail'] as const,
    logs: (prefix: string, name: string, id: string, pageSize: number) =>
      ['queues', 'job', prefix, name, id, 'logs', pageSize] as const,
    timeline: (prefix: string, name: string, id: string) =>
      ['queues', 'job', prefix, name, id, 'timeline'] as const,
  },
  flow: {
    all: ['queues', 'flow'] as const,
    graph: (prefix: string, queue: string, id: string) =>
      ['queues', 'flow', prefix, queue, id] as const,
  },
  // ---- workers and metrics pages ----
  workers: {
    all: ['workers'] as const,
    list: (page: number, pageSize: number) => ['workers', 'list', { page, pageSize }] as const,
  },
  metrics: {
    all: ['metrics'] as const,
    queue: (prefix: string, name: string, minutes: number) =>
      ['metrics', 'queue', prefix, name, { minutes }] as const,
    sparklines: (queues: string) => ['metrics', 'sparklines', queues] as const,
  },
  // The timing history: not under metrics.all, so live events do not refetch whole ranges on
  // every finished job; each chart polls at a pace of its range (history-format.ts). The
  // overview's sparklines (a few fields per queue) are under metrics.all.
  history: {
    all: ['history'] as const,
    queue: (prefix: string, name: string, range: string, job: string | null) =>
      ['history', 'queue', prefix, name, { range, job }] as const,
    across: (range: string, job: string | null, page: number) =>
      ['history', 'across', { range, job, page }] as const,
  },
  audit: {
    all: ['audit'] as const,
    page: (kind: 'accepted' | 'refused', before: string | null) =>
      ['audit', 'page', kind, before] as const,
  },
} as const;
