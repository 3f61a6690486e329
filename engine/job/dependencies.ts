/**
 * Reading a job's children, shaped as bullmq 6.7.0's Job methods return them (docs/redis-keys.md): the
 * Job class delegates here. Nothing is read until a method is called, and each call is one
 * round trip.
 */
import type { DependencyKind, QueueOperations } from '../backend/queue-operations';
import { ValidationError } from '../errors';

/** Paging of one kind of dependency: SSCAN/HSCAN cursor (ZRANGE offset for `failed`). */
export interface DependencyOpts {
  /** Where to go on: 0 to start, then the `next…Cursor` of the previous page. */
  cursor?: number;
  /** About how many entries per page (default 20). */
  count?: number;
}

export interface DependenciesOpts {
  processed?: DependencyOpts;
  unprocessed?: DependencyOpts;
  ignored?: DependencyOpts;
  failed?: DependencyOpts;
}

/**
 * What getDependencies returns. Without options: all four kinds, no cursors. With options: only
 * the kinds asked for, each with the cursor of its next page (0 once read to the end).
 */
export interface Dependencies {
  /** Completed children: child key → return value. */
  processed?: Record<string, unknown>;
  nextProcessedCursor?: number;
  /** Children still pending (full job keys). */
  unprocessed?: string[];
  nextUnprocessedCursor?: number;
  /** Children whose failure was ignored or let the parent continue: child key → failedReason. */
  ignored?: Record<string, string>;
  nextIgnoredCursor?: number;
  /** Children that failed with failParentOnFailure (full job keys). */
  failed?: string[];
  nextFailedCursor?: number;
}

export type DependencyCountsOpts = Partial<Record<DependencyKind, boolean>>;
export type DependencyCounts = Partial<Record<DependencyKind, number>>;

const KINDS: readonly DependencyKind[] = ['processed', 'unprocessed', 'ignored', 'failed'];
const DEFAULT_PAGE = { cursor: 0, count: 20 };

/** Return values are JSON; a value that is not (written by hand) is returned as its text. */
function parseValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function parsedValues(entries: Iterable<[string, string]>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, text] of entries) values[key] = parseValue(text);
  return values;
}

function checkOptionKeys(opts: object, method: string): void {
  if (opts === null || typeof opts !== 'object') {
    throw new ValidationError(`${method} options must be an object`);
  }
  for (const key of Object.keys(opts)) {
    if (!KINDS.includes(key as DependencyKind)) {
      throw new ValidationError(`${method}: unknown kind "${key}" (expected ${KINDS.join(', ')})`);
    }
  }
}

export async function getChildrenValues(
  ops: QueueOperations,
  jobId: string,
): Promise<Record<string, unknown>> {
  return parsedValues(Object.entries(await ops.getProcessedChildren(jobId)));
}

export async function getDependencies(
  ops: QueueOperations,
  jobId: string,
  opts: DependenciesOpts,
): Promise<Dependencies> {
  checkOptionKeys(opts, 'getDependencies');
  const asked = KINDS.filter((kind) => Boolean(opts[kind]));
  if (asked.length === 0) {
    const all = await ops.getDependencies(jobId);
    return {
      processed: parsedValues(all.processed),
      unprocessed: all.unprocessed,
      failed: all.failed,
      ignored: Object.fromEntries(all.ignored),
    };
  }

  const requests: Partial<Record<DependencyKind, { cursor: number; count: number }>> = {};
  for (const kind of asked) {
    const page = opts[kind];
    const given = typeof page === 'object' ? page : {};
    requests[kind] = {
      cursor: given.cursor ?? DEFAULT_PAGE.cursor,
      count: given.count ?? DEFAULT_PAGE.count,
    };
  }
  const pages = await ops.getDependencyPages(jobId, requests);
  const result: Dependencies = {};
  if (pages.processed) {
    result.processed = parsedValues(pages.processed.entries);
    result.nextProcessedCursor = pages.processed.next;
  }
  if (pages.unprocessed) {
    result.unprocessed = pages.unprocessed.keys;
    result.nextUnprocessedCursor = pages.unprocessed.next;
  }
  if (pages.ignored) {
    result.ignored = Object.fromEntries(pages.ignored.entries);
    result.nextIgnoredCursor = pages.ignored.next;
  }
  if (pages.failed) {
    result.failed = pages.failed.keys;
    result.nextFailedCursor = pages.failed.next;
  }
  return result;
}

/** Counts of the kinds set to true (all four when none is), keyed by kind. */
export async function getDependenciesCount(
  ops: QueueOperations,
  jobId: string,
  opts: DependencyCountsOpts,
): Promise<DependencyCounts> {
  checkOptionKeys(opts, 'getDependenciesCount');
  const asked = (Object.keys(opts) as DependencyKind[]).filter((kind) => Boolean(opts[kind]));
  const kinds = asked.length > 0 ? asked : [...KINDS];
  const values = await ops.getDependencyCounts(jobId, kinds);
  const counts: DependencyCounts = {};
  kinds.forEach((kind, i) => (counts[kind] = values[i] ?? 0));
  return counts;
}

/** `<prefix>:<queue>:<id>` of a child given as bullmq does: `{ id, queue: "<prefix>:<queue>" }`. */
export function childKeyOf(child: { id: string; queue: string } | undefined): string | undefined {
  if (child === undefined) return undefined;
  if (
    child === null ||
    typeof child !== 'object' ||
    typeof child.id !== 'string' ||
    child.id === '' ||
    typeof child.queue !== 'string' ||
    !child.queue.includes(':')
  ) {
    throw new ValidationError('child must be { id, queue: "<prefix>:<queueName>" }');
  }
  return `${child.queue}:${child.id}`;
}
