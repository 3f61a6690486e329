/**
 * The fixture the integrity tests break by hand: an OxMQ queue on the test's Redis, a raw client
 * to break it with, its key names, and `findings()`, the non-zero counts and samples of a full
 * check (docs/integrity.md).
 */
import { Queue } from 'oxmq';
import { checkQueueIntegrityToEnd, INVARIANTS, type Invariant } from 'oxmq/admin';
import type { Track } from '../../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../../helpers/redis';
import { queueKey } from '../../helpers/redis-state';

export function brokenQueue(track: Track, label: string) {
  const name = uniqueQueueName(label);
  const redis = track(rawClient());
  const queue = track(new Queue(name, { connection: redisOptions() }));
  const key = (suffix: string) => queueKey(name, suffix);
  const ref = { prefix: 'bull', name };
  const check = () => checkQueueIntegrityToEnd(redis, ref);
  const findings = async () => {
    const report = await check();
    const counts: Partial<Record<Invariant, number>> = {};
    const samples: Partial<Record<Invariant, string[]>> = {};
    for (const invariant of INVARIANTS) {
      if (report.counts[invariant] === 0) continue;
      counts[invariant] = report.counts[invariant];
      samples[invariant] = report.samples[invariant];
    }
    return { clean: report.clean, counts, samples };
  };
  return { name, redis, queue, key, ref, check, findings };
}
