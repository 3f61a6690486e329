/**
 * The one react-query key factory (design.md §3.8). Keys are hierarchical, so a mutation can
 * invalidate a whole branch: `queryKeys.queues.all` covers the list and every queue.
 */
export const queryKeys = {
  queues: {
    all: ['queues'] as const,
    list: (page: number, pageSize: number) => ['queues', 'list', { page, pageSize }] as const,
    detail: (prefix: string, name: string) => ['queues', 'detail', prefix, name] as const,
  },
  audit: {
    all: ['audit'] as const,
    page: (before: string | null) => ['audit', 'page', before] as const,
  },
} as const;
