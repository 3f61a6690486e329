/**
 * The search filter as routes take it in a query string (`mode`, `q`, `path`), checked once for
 * the paged search, the streamed search and the export.
 */
import 'server-only';
import { z } from 'zod';
import type { JobFilter, JobSearchMode } from 'oxmq/admin';
import { dataPathSchema } from './queue-page-input';

export const SCAN_MODES = ['name', 'text', 'path'] as const satisfies readonly JobSearchMode[];

export const filterFields = {
  q: z.string().max(512).default(''),
  path: dataPathSchema.optional(),
};

interface FilterInput {
  mode?: string;
  q: string;
  path?: string;
}

/** The rules every filter input follows, added to a route's query schema. */
export function refineFilter<T extends z.ZodType<FilterInput>>(schema: T) {
  return schema
    .refine((input) => input.mode !== 'path' || input.path !== undefined, {
      message: 'mode=path needs a path',
      path: ['path'],
    })
    .refine((input) => input.mode === undefined || input.mode === 'path' || input.q.trim() !== '', {
      message: 'type something to search for',
      path: ['q'],
    });
}

/** The engine's filter for a checked input; null when the input names no mode (every job). */
export function toJobFilter(input: FilterInput): JobFilter | null {
  if (input.mode === undefined) return null;
  const mode = input.mode as (typeof SCAN_MODES)[number];
  return { mode, query: input.q, ...(mode === 'path' ? { path: input.path } : {}) };
}
