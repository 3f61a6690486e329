/**
 * The lines of a streamed search: the redacted rows a walk of the state keeps, as it finds them,
 * and its progress a few times a second, ending with `end` (or `error` if Redis failed midway:
 * the status line is sent already, so the failure travels in the body).
 */
import 'server-only';
import type { JobFilter, ScanOrder } from 'oxmq/admin';
import type { QueueCountState, SearchStreamLine, SearchStreamStop } from '@/lib/api-types';
import { admin } from './oxmq';

const SEARCH_STREAM_LIMITS = {
  /** Matches one search sends at most; past them the page asks for a narrower search. */
  maxMatches: 1_000,
  /** How long one search may walk; a million 200-byte jobs take well under this. */
  maxDurationMs: 120_000,
  /** Progress lines are sent at most this often (matches go at once). */
  progressEveryMs: 100,
} as const;

export interface SearchStreamRequest {
  prefix: string;
  name: string;
  state: QueueCountState;
  order: ScanOrder;
  filter: JobFilter;
}

const line = (value: SearchStreamLine): string => `${JSON.stringify(value)}\n`;

export async function* searchStreamLines(
  request: SearchStreamRequest,
  limits = SEARCH_STREAM_LIMITS,
): AsyncGenerator<string, void> {
  const started = Date.now();
  const walk = admin().jobs.scanRows(request.prefix, request.name, {
    state: request.state,
    order: request.order,
    filter: request.filter,
  });
  let found = 0;
  let last = { scanned: 0, total: 0, tooLarge: 0 };
  let stoppedBy: SearchStreamStop = null;
  let progressAt = 0;
  try {
    for await (const step of walk) {
      last = { scanned: step.scanned, total: step.total, tooLarge: step.tooLarge };
      const rows = step.views.slice(0, limits.maxMatches - found);
      found += rows.length;
      if (rows.length > 0) yield line({ type: 'matches', jobs: rows });
      if (found >= limits.maxMatches && !step.done) {
        stoppedBy = 'matches';
        break;
      }
      if (Date.now() - started > limits.maxDurationMs && !step.done) {
        stoppedBy = 'time';
        break;
      }
      if (rows.length > 0 || Date.now() - progressAt >= limits.progressEveryMs) {
        progressAt = Date.now();
        yield line({ type: 'progress', ...last, found });
      }
    }
  } catch (error) {
    console.error('OxMQ console: a streamed search failed:', error);
    yield line({
      type: 'error',
      code: 'SEARCH_FAILED',
      message: 'The search stopped: Redis failed',
    });
    return;
  }
  yield line({ type: 'end', ...last, found, stoppedBy });
}
