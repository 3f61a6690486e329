/**
 * A queue's failed jobs grouped by error: the signature of each job's redacted failure reason
 * (engine/admin/error-signature.ts), with per group a count, the first and last failure, and one
 * sample job.
 *
 * One call is bounded: at most `budget` jobs, read newest first from the failed sorted set in
 * chunks (ZREVRANGE, then one pipeline sizing the reasons with HSTRLEN and one HMGET pipeline), and
 * at most ERROR_GROUP_LIMITS.maxBytes of reasons. The answer carries a cursor; the caller scans a
 * large failed set in successive calls and merges their groups (engine/admin/error-group-merge.ts).
 *
 * Redacting and signing the reasons is the CPU-heavy part: it runs in short slices on the turns
 * every admin loop of the process shares (engine/admin/cpu-turns.ts).
 *
 * The cursor is `<offset>:<last job id>`. The next call resumes just after that job's current
 * rank, so failures that arrive meanwhile (they rank first) and jobs retried meanwhile do not
 * shift the scan; only when that job itself has left the set does it fall back to the offset.
 */
import type { RedisClient } from '../../backend/redis/connection';
import { QueueKeys } from '../../queue/keys';
import { SHARED_CPU_TURNS, type CpuTurns } from '../cpu-turns';
import {
  byCount,
  MAX_ERROR_GROUPS,
  type ErrorGroup,
  type ErrorGroupTally,
} from '../error-group-merge';
import { errorSignature } from '../error-signature';
import { DEFAULT_REDACTION, redactString, type RedactionRules } from '../redaction';

export const ERROR_GROUP_LIMITS = {
  /** Jobs one call examines at most (and by default). */
  maxBudget: 5_000,
  /** Jobs read per round trip. */
  chunk: 500,
  /** Bytes of failure reasons one call reads at most. */
  maxBytes: 8 * 1024 * 1024,
  /** Characters of a sample's reason answered. */
  sampleChars: 1_000,
} as const;

export interface ErrorGroupScanOptions {
  /** The previous answer's `next`; absent to start from the newest failure. */
  cursor?: string;
  /** Jobs examined at most (clamped to ERROR_GROUP_LIMITS.maxBudget). */
  budget?: number;
  /** The redaction the signatures and samples see; the defaults when not given. */
  redaction?: RedactionRules;
  /** Distinct groups at most; the rest are counted in `other`. */
  maxGroups?: number;
  /** Whose turns the redaction waits for; the process's shared ones when not given. */
  turns?: CpuTurns;
}

export interface ErrorGroupScan extends ErrorGroupTally {
  /** Jobs this call examined (read or passed over). */
  scanned: number;
  /** Offset (newest first) the call started at and reached: `to` of `total` are grouped so far. */
  from: number;
  to: number;
  /** Failed jobs when the call ended. */
  total: number;
  /** Cursor for the next call; null when the failed set was scanned to its end. */
  next: string | null;
  /** Jobs passed over because their reason alone is larger than a call's byte budget. */
  tooLarge: number;
}

export class ErrorGroupCursorError extends Error {
  override readonly name = 'ErrorGroupCursorError';
  readonly code = 'INVALID_CURSOR';
}

const CURSOR = /^(\d{1,15}):(.+)$/s;
const READ_FIELDS = ['failedReason', 'finishedOn', 'timestamp'] as const;

/** `<offset>:<id>` → where the next call starts, or a typed error for a malformed cursor. */
async function resumeAt(client: RedisClient, failedKey: string, cursor: string): Promise<number> {
  const parsed = CURSOR.exec(cursor);
  if (!parsed) throw new ErrorGroupCursorError(`Not an error-group cursor: ${cursor.slice(0, 40)}`);
  const rank = await client.zrevrank(failedKey, parsed[2]!);
  return rank === null ? Number(parsed[1]) : rank + 1;
}

function clampBudget(budget: number | undefined): number {
  const n = budget === undefined || !Number.isFinite(budget) ? Infinity : Math.floor(budget);
  return Math.max(1, Math.min(n, ERROR_GROUP_LIMITS.maxBudget));
}

function shorten(text: string): string {
  const max = ERROR_GROUP_LIMITS.sampleChars;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export async function groupFailedJobs(
  client: RedisClient,
  prefix: string,
  name: string,
  opts: ErrorGroupScanOptions = {},
): Promise<ErrorGroupScan> {
  const keys = new QueueKeys(prefix, name);
  const failedKey = keys.key('failed');
  const rules = opts.redaction ?? DEFAULT_REDACTION;
  const maxGroups = opts.maxGroups ?? MAX_ERROR_GROUPS;
  const budget = clampBudget(opts.budget);
  const from = opts.cursor ? await resumeAt(client, failedKey, opts.cursor) : 0;
  const groups = new Map<string, ErrorGroup>();
  let other = 0;
  let offset = from;
  let lastId: string | null = null;
  let bytesRead = 0;
  let tooLarge = 0;
  let ended = false;
  const slice = (opts.turns ?? SHARED_CPU_TURNS).slice();

  const tally = (id: string, fields: (string | null)[]) => {
    const [rawReason, finishedOn, timestamp] = fields;
    const reason = rawReason ? redactString(rawReason, rules) : null;
    const signature = errorSignature(reason);
    const at = Number(finishedOn) || Number(timestamp) || 0;
    const known = groups.get(signature);
    if (known) {
      known.count += 1;
      known.firstSeen = Math.min(known.firstSeen, at);
      known.lastSeen = Math.max(known.lastSeen, at);
    } else if (groups.size < maxGroups) {
      // Newest first: the first job met is the group's most recent failure, its sample.
      groups.set(signature, {
        signature,
        count: 1,
        firstSeen: at,
        lastSeen: at,
        sample: { id, reason: shorten(reason ?? '') },
      });
    } else other += 1;
  };

  scan: while (offset - from < budget) {
    const size = Math.min(ERROR_GROUP_LIMITS.chunk, budget - (offset - from));
    const ids = await client.zrevrange(failedKey, offset, offset + size - 1);
    if (ids.length === 0) {
      ended = true;
      break;
    }
    const sizing = client.pipeline();
    for (const id of ids) sizing.hstrlen(keys.base + id, 'failedReason');
    const sizes = ((await sizing.exec()) ?? []).map(([error, reply]) => {
      if (error) throw error;
      return Number(reply);
    });
    // Which ids this chunk reads: up to the first whose reason would overflow the byte budget.
    const reading: string[] = [];
    let stopAt = ids.length;
    for (const [i, id] of ids.entries()) {
      const bytes = sizes[i] ?? 0;
      if (bytes > ERROR_GROUP_LIMITS.maxBytes) tooLarge += 1;
      else if (bytesRead + bytes > ERROR_GROUP_LIMITS.maxBytes) {
        stopAt = i;
        break;
      } else {
        bytesRead += bytes;
        reading.push(id);
      }
    }
    const pipeline = client.pipeline();
    for (const id of reading) pipeline.hmget(keys.base + id, ...READ_FIELDS);
    const replies = reading.length > 0 ? ((await pipeline.exec()) ?? []) : [];
    await slice.begin();
    for (const [index, id] of reading.entries()) {
      const [error, reply] = replies[index] ?? [null, null];
      if (error) throw error;
      const fields = (reply as (string | null)[] | null) ?? [];
      // Every field null: the job was removed since its id was listed.
      if (fields.some((value) => value !== null)) tally(id, fields);
      if (slice.spent()) await slice.begin();
    }
    offset += stopAt;
    if (stopAt > 0) lastId = ids[stopAt - 1] ?? lastId;
    if (stopAt < ids.length) break scan;
    if (ids.length < size) {
      ended = true;
      break;
    }
  }

  const total = await client.zcard(failedKey);
  const done = ended || offset >= total;
  return {
    groups: [...groups.values()].sort(byCount),
    other,
    scanned: offset - from,
    from,
    to: offset,
    total,
    next: done || lastId === null ? null : `${offset}:${lastId}`,
    tooLarge,
  };
}
