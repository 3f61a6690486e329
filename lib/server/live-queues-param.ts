/**
 * The `queues` query parameter of GET /api/events: comma-separated `<prefix>/<name>` pairs,
 * each part URI-encoded (so neither may smuggle a "," or "/"). Absent means every queue the
 * console discovers. Only configured prefixes are accepted.
 */
import 'server-only';
import { z } from 'zod';
import type { QueueRef } from 'oxmq/admin';

/** Queues one browser tab may watch; the overview's page size is 100. */
export const MAX_QUEUES_PER_SUBSCRIBER = 200;

const pair = z.string().transform((text, ctx): QueueRef => {
  const parts = text.split('/');
  let decoded: string[] = [];
  try {
    decoded = parts.map((part) => decodeURIComponent(part));
  } catch {
    decoded = [];
  }
  const [prefix, name] = decoded;
  if (decoded.length !== 2 || !prefix || !name || name.includes(':')) {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not <prefix>/<queue>` });
    return z.NEVER;
  }
  return { prefix, name };
});

export const liveQueuesQuery = z.object({
  queues: z
    .string()
    .max(64 * 1024)
    .optional()
    .transform((text) => (text === undefined || text === '' ? [] : text.split(',')))
    .pipe(z.array(pair).max(MAX_QUEUES_PER_SUBSCRIBER)),
});
