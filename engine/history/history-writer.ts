/**
 * Writes to a queue's history: counts to add and samples to set, each at a minute, go to the
 * minute hash and to the hour hash around it in one script call per hour touched (usually one).
 */
import type { RedisClient } from '../connection';
import { runScript } from '../backend/redis/run-script';
import type { QueueKeys } from '../keys';
import {
  hashStart,
  historyExpiresAt,
  historyField,
  historyIndexKey,
  historyKey,
  slotStart,
  type HistoryRetention,
} from './history-keys';

/** One field of the history at one minute: a count to add, or a value to set. */
export interface HistoryEntry {
  /** Any time inside the minute. */
  at: number;
  series: string;
  name: string;
  value: number;
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
