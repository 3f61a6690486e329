/**
 * The console's audit log: one Redis stream entry per mutation request.
 *
 * A stream because it is append-only, ordered by time, trimmed cheaply (MAXLEN ~, MINID ~) and
 * read newest-first in pages with XREVRANGE ... COUNT, so no read is unbounded. The keys are
 * global (not under a queue prefix): one console may administer several prefixes.
 *
 * Two streams: what users with the role did (`accepted`), and requests refused for want of a
 * role, origin or writable console (`refused`). Anyone signed in can make refused requests, so
 * they get a stream of their own (and a throttle: recordAudit in lib/server/oxmq.ts), so a
 * viewer's flood of refused POSTs can never push the history of real actions out.
 */
import type { RedisClient } from '../../backend/redis/connection';

export const AUDIT_STREAM_KEY = 'oxmq:audit';
export const AUDIT_REFUSED_STREAM_KEY = 'oxmq:audit:refused';

export type AuditKind = 'accepted' | 'refused';

export const AUDIT_STREAMS: Record<AuditKind, { key: string; maxLen: number }> = {
  accepted: { key: AUDIT_STREAM_KEY, maxLen: 10_000 },
  refused: { key: AUDIT_REFUSED_STREAM_KEY, maxLen: 2_000 },
};

export const AUDIT_DEFAULTS = {
  /** Approximate number of entries kept (MAXLEN ~ lets Redis trim whole macro nodes). */
  maxLen: AUDIT_STREAMS.accepted.maxLen,
  /** Entries older than this are trimmed (MINID ~), at most once a minute per stream. */
  retentionMs: 90 * 24 * 60 * 60 * 1000,
  pageSize: 50,
  maxPageSize: 100,
} as const;

/** How often a process trims a stream by age: age trimming needs no precision. */
const AGE_TRIM_INTERVAL_MS = 60_000;
const lastAgeTrim = new Map<string, number>();

export type AuditOutcome = 'ok' | 'denied' | 'invalid' | 'error';

export interface AuditRecord {
  /** Who: the signed-in username. */
  actor: string;
  role: string;
  /** What: an action name such as "queue.pause". */
  action: string;
  /** What it was applied to, e.g. "bull:emails". */
  target: string;
  /** The request's route parameters and body, as sent (JSON-serialisable). */
  params: unknown;
  outcome: AuditOutcome;
  /** The HTTP status answered. */
  status: number;
  /** The error code when the outcome is not ok. */
  code?: string;
  /** Refused requests of this actor not written since the previous entry (the throttle). */
  suppressed?: number;
}

export interface AuditEntry extends AuditRecord {
  /** The stream entry id; also the paging cursor. */
  id: string;
  /** When: ms since the epoch, from the entry id (Redis' clock). */
  at: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `before` for the next (older) page; null at the end. */
  next: string | null;
}

/** A stream id as XADD answers it ("ms-seq"); anything else is refused before it reaches Redis. */
export const AUDIT_ID_PATTERN = /^\d{1,20}-\d{1,20}$/;

export async function appendAudit(
  client: RedisClient,
  record: AuditRecord,
  opts: { key?: string; maxLen?: number; retentionMs?: number; now?: number } = {},
): Promise<string> {
  const fields = [
    'actor',
    record.actor,
    'role',
    record.role,
    'action',
    record.action,
    'target',
    record.target,
    'params',
    JSON.stringify(record.params ?? null),
    'outcome',
    record.outcome,
    'status',
    String(record.status),
  ];
  if (record.code !== undefined) fields.push('code', record.code);
  if (record.suppressed) fields.push('suppressed', String(record.suppressed));
  const key = opts.key ?? AUDIT_STREAM_KEY;
  const id = await client.xadd(
    key,
    'MAXLEN',
    '~',
    opts.maxLen ?? AUDIT_DEFAULTS.maxLen,
    '*',
    ...fields,
  );
  await trimByAge(client, key, opts.retentionMs ?? AUDIT_DEFAULTS.retentionMs, opts.now);
  return id ?? '';
}

/** Drops entries older than the retention (XADD trims by one strategy only: count). */
async function trimByAge(
  client: RedisClient,
  key: string,
  retentionMs: number,
  now = Date.now(),
): Promise<void> {
  if (now - (lastAgeTrim.get(key) ?? 0) < AGE_TRIM_INTERVAL_MS) return;
  lastAgeTrim.set(key, now);
  // Exact, not '~': a small stream would otherwise keep its old entries (whole nodes only).
  await client.xtrim(key, 'MINID', String(Math.max(0, now - retentionMs)));
}

export async function readAudit(
  client: RedisClient,
  opts: { before?: string; count?: number; key?: string } = {},
): Promise<AuditPage> {
  const count = Math.max(
    1,
    Math.min(opts.count ?? AUDIT_DEFAULTS.pageSize, AUDIT_DEFAULTS.maxPageSize),
  );
  if (opts.before !== undefined && !AUDIT_ID_PATTERN.test(opts.before)) {
    throw new RangeError(`invalid audit cursor: ${opts.before}`);
  }
  // "(" makes the end exclusive (Redis >= 6.2): the cursor entry was on the previous page.
  const end = opts.before === undefined ? '+' : `(${opts.before}`;
  // One extra entry tells whether an older page exists without a second round trip.
  const rows = await client.xrevrange(opts.key ?? AUDIT_STREAM_KEY, end, '-', 'COUNT', count + 1);
  const page = rows.slice(0, count).map(([id, fields]) => toEntry(id, fields));
  const last = page[page.length - 1];
  return { entries: page, next: rows.length > count && last ? last.id : null };
}

function toEntry(id: string, flat: string[]): AuditEntry {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  let params: unknown = null;
  try {
    params = JSON.parse(fields.get('params') ?? 'null');
  } catch {
    params = fields.get('params') ?? null;
  }
  const outcome = fields.get('outcome');
  return {
    id,
    at: Number(id.split('-')[0]),
    actor: fields.get('actor') ?? '',
    role: fields.get('role') ?? '',
    action: fields.get('action') ?? '',
    target: fields.get('target') ?? '',
    params,
    outcome: isOutcome(outcome) ? outcome : 'error',
    status: Number(fields.get('status') ?? 0),
    code: fields.get('code'),
    ...(fields.has('suppressed') ? { suppressed: Number(fields.get('suppressed')) } : {}),
  };
}

function isOutcome(value: string | undefined): value is AuditOutcome {
  return value === 'ok' || value === 'denied' || value === 'invalid' || value === 'error';
}
