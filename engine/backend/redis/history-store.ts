/**
 * A queue's timing history on Redis (TimingHistoryStore): counts to add and samples to set, each
 * at a minute, go to the minute hash and to the hour hash around it in one script call per hour
 * touched (usually one); reads are one pipeline of the hashes a window spans
 * (docs/redis-keys.md, "History").
 */
import type { RedisClient } from './connection';
import {
  DAY_MS,
  hashStart,
  historyExpiresAt,
  historyField,
  historyIndexKey,
  historyKey,
  HOUR_MS,
  parseHistoryField,
  slotStart,
  type HistoryRetention,
  type Resolution,
} from '../../history/history-keys';
import type { QueueKeys } from '../../queue/keys';
import type { HistoryEntry, TimingHistoryStore } from '../timing-history';
import { runScript } from './run-script';

export type { HistoryEntry } from '../timing-history';

export class RedisTimingHistory implements TimingHistoryStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: QueueKeys,
  ) {}

  write(
    adds: readonly HistoryEntry[],
    sets: readonly HistoryEntry[],
    retention: HistoryRetention,
  ): Promise<void> {
    return writeHistory(this.client, this.keys, retention, adds, sets);
  }

  async read(resolution: Resolution, from: number, to: number): Promise<Record<string, number>> {
    const span = resolution === 'minute' ? HOUR_MS : DAY_MS;
    const pipeline = this.client.pipeline();
    for (let at = hashStart(resolution, from); at < to; at += span) {
      pipeline.hgetall(historyKey(this.keys, resolution, at));
    }
    const fields: Record<string, number> = {};
    for (const [error, reply] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      for (const [field, text] of Object.entries(reply as Record<string, string>)) {
        const slot = parseHistoryField(field)?.slot;
        if (slot !== undefined && slot >= from && slot < to) fields[field] = Number(text);
      }
    }
    return fields;
  }
}

interface HourBatch {
  at: number;
  minuteAdds: (string | number)[];
  hourAdds: (string | number)[];
  minuteSets: (string | number)[];
  hourSets: (string | number)[];
}

export async function writeHistory(
  client: RedisClient,
  keys: QueueKeys,
  retention: HistoryRetention,
  adds: readonly HistoryEntry[],
  sets: readonly HistoryEntry[] = [],
): Promise<void> {
  const hours = new Map<number, HourBatch>();
  const batchOf = (at: number) => {
    const hour = hashStart('minute', at);
    let batch = hours.get(hour);
    if (!batch) {
      batch = { at, minuteAdds: [], hourAdds: [], minuteSets: [], hourSets: [] };
      hours.set(hour, batch);
    }
    return batch;
  };
  const fields = (entry: HistoryEntry) => ({
    minute: historyField(slotStart('minute', entry.at), entry.series, entry.name),
    hour: historyField(slotStart('hour', entry.at), entry.series, entry.name),
  });
  for (const entry of adds) {
    const batch = batchOf(entry.at);
    const { minute, hour } = fields(entry);
    batch.minuteAdds.push(minute, Math.round(entry.value));
    batch.hourAdds.push(hour, Math.round(entry.value));
  }
  for (const entry of sets) {
    const batch = batchOf(entry.at);
    const { minute, hour } = fields(entry);
    // The hour keeps its last sample: a backlog is a level, not a sum.
    batch.minuteSets.push(minute, entry.value);
    batch.hourSets.push(hour, entry.value);
  }
  await Promise.all(
    [...hours.values()].map((batch) =>
      runScript(
        client,
        'recordHistory',
        [
          historyKey(keys, 'minute', batch.at),
          historyKey(keys, 'hour', batch.at),
          historyIndexKey(keys),
        ],
        [
          historyExpiresAt('minute', batch.at, retention),
          historyExpiresAt('hour', batch.at, retention),
          JSON.stringify(batch.minuteAdds),
          JSON.stringify(batch.hourAdds),
          JSON.stringify(batch.minuteSets),
          JSON.stringify(batch.hourSets),
        ],
      ),
    ),
  );
}
