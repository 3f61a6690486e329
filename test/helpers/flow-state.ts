/**
 * Raw Redis reads for the flow suites: every key under a prefix with its contents (to prove that
 * a refused flow wrote nothing, or that two libraries wrote the same flow), a parent's children
 * results, and the cluster hash slot of a key.
 */
import type { Redis } from 'ioredis';

/** Every key matching `pattern` (a SCAN glob), sorted. */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.forEach((key) => found.add(key));
  } while (cursor !== '0');
  return [...found].sort();
}

/** Escapes the SCAN glob characters of a literal key part. */
export function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** Every key under `<prefix>:`, sorted. */
export function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  return scanKeys(redis, `${globLiteral(prefix)}:*`);
}

/** One key's type and contents, in a form that compares with toEqual. */
export interface KeyDump {
  type: string;
  /**
   * hash: field map; set: sorted members; zset: [member, score] by score; list: head → tail;
   * string: the value; stream: entries as field maps (with `_id` unless dropped).
   */
  value: unknown;
}

export async function dumpKey(redis: Redis, key: string, streamIds = true): Promise<KeyDump> {
  const type = await redis.type(key);
  switch (type) {
    case 'hash':
      return { type, value: await redis.hgetall(key) };
    case 'set':
      return { type, value: (await redis.smembers(key)).sort() };
    case 'zset': {
      const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
      const pairs: [string, string][] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
      return { type, value: pairs };
    }
    case 'list':
      return { type, value: await redis.lrange(key, 0, -1) };
    case 'stream': {
      const entries = await redis.xrange(key, '-', '+');
      return {
        type,
        value: entries.map(([id, flat]) => {
          const fields: Record<string, string> = streamIds ? { _id: id } : {};
          for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
          return fields;
        }),
      };
    }
    case 'string':
      return { type, value: await redis.get(key) };
    default:
      return { type, value: null };
  }
}

/** Every key under the prefixes with its contents: equal snapshots mean nothing was written. */
export async function snapshot(
  redis: Redis,
  prefixes: string[],
  streamIds = true,
): Promise<Record<string, KeyDump>> {
  const dump: Record<string, KeyDump> = {};
  for (const prefix of prefixes) {
    for (const key of await keysUnder(redis, prefix)) {
      dump[key] = await dumpKey(redis, key, streamIds);
    }
  }
  return dump;
}

/**
 * A flow's keys and contents with `prefix` replaced by `<P>` everywhere (keys, field values,
 * members) and each hash's `opts` parsed, so the same flow written under two prefixes by two
 * libraries compares with toEqual. Stream ids are dropped (they are times).
 */
export async function normalizedFlowDump(
  redis: Redis,
  prefix: string,
): Promise<Record<string, KeyDump>> {
  const raw = await snapshot(redis, [prefix], false);
  const swap = (text: string) => text.split(prefix).join('<P>');
  const normalize = (value: unknown): unknown => {
    if (typeof value === 'string') return swap(value);
    if (Array.isArray(value)) return value.map(normalize);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[swap(k)] = normalize(v);
      return out;
    }
    return value;
  };
  const result: Record<string, KeyDump> = {};
  for (const [key, dump] of Object.entries(raw)) {
    let value = normalize(dump.value);
    if (dump.type === 'hash' && value && typeof value === 'object' && 'opts' in value) {
      const hash = value as Record<string, unknown>;
      value = { ...hash, opts: JSON.parse(String(hash.opts)) as unknown };
    }
    if (dump.type === 'set' && Array.isArray(value)) value = [...(value as string[])].sort();
    result[swap(key)] = { type: dump.type, value };
  }
  return result;
}

/** `HGETALL <jobKey>:processed` with the values parsed (what getChildrenValues returns). */
export async function processedValues(
  redis: Redis,
  jobKey: string,
): Promise<Record<string, unknown>> {
  const raw = await redis.hgetall(`${jobKey}:processed`);
  const values: Record<string, unknown> = {};
  for (const [key, json] of Object.entries(raw)) values[key] = JSON.parse(json) as unknown;
  return values;
}

/** CRC16/XMODEM, the checksum Redis Cluster uses for key slots. */
function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** The Redis Cluster slot of a key (hash tag rules: the first non-empty `{...}`). */
export function hashSlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(Buffer.from(key)) % 16384;
}
