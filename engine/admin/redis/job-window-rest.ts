/**
 * The second read of a walk's window (engine/admin/job-scan.ts): a window brings only the fields a
 * filter's first look needs (data for a text search, the name for a name search), which is most of
 * what a scan of a big state costs; the jobs that pass that look get their other fields here, sized
 * first like the window's, in one pipeline each way. A search that matches little reads little.
 */
import type { RedisClient } from '../../backend/redis/connection';
import { QueueKeys } from '../../queue/keys';

export interface FieldSet {
  /** Fields that can be large: sized before they are read. */
  sized: readonly string[];
  /** The few digits of the numbers bullmq writes: read as they are. */
  unsized: readonly string[];
}

/** A job of the window that passed the filter's first look, with the fields read so far. */
export interface PassedJob {
  /** Its place in the window, so a walk can resume there. */
  index: number;
  id: string;
  fields: Record<string, string>;
  /** Bytes its first read took (counted with the rest against the job cap). */
  bytes: number;
}

export interface RestOfWindow {
  /** The passed jobs with all their fields, in window order; gone ones left out. */
  jobs: PassedJob[];
  /** Passed jobs left out as larger than the job cap. */
  tooLarge: number;
  bytes: number;
  /** Window index of the first passed job the budget could not take; null when all fitted. */
  stoppedAt: number | null;
}

export async function readRestOfWindow(
  client: RedisClient,
  prefix: string,
  name: string,
  candidates: readonly PassedJob[],
  rest: FieldSet,
  limits: { budgetBytes: number; jobMaxBytes: number },
): Promise<RestOfWindow> {
  const done: RestOfWindow = { jobs: [], tooLarge: 0, bytes: 0, stoppedAt: null };
  const fields = [...rest.sized, ...rest.unsized];
  if (candidates.length === 0 || fields.length === 0) {
    done.jobs = [...candidates];
    return done;
  }
  const base = new QueueKeys(prefix, name).base;
  const sizing = client.pipeline();
  for (const candidate of candidates) {
    for (const field of rest.sized) sizing.hstrlen(base + candidate.id, field);
  }
  const sizes = ((await sizing.exec()) ?? []).map(([error, reply]) => {
    if (error) throw error;
    return Number(reply);
  });
  const wanted: { candidate: PassedJob; size: number }[] = [];
  let left = limits.budgetBytes;
  for (const [i, candidate] of candidates.entries()) {
    let size = 0;
    for (let f = 0; f < rest.sized.length; f++) size += sizes[i * rest.sized.length + f] ?? 0;
    if (candidate.bytes + size > limits.jobMaxBytes) {
      done.tooLarge += 1;
      continue;
    }
    if (size > left) {
      done.stoppedAt = candidate.index;
      break;
    }
    left -= size;
    wanted.push({ candidate, size });
  }
  if (wanted.length === 0) return done;
  const reading = client.pipeline();
  for (const { candidate } of wanted) reading.hmget(base + candidate.id, ...fields);
  const replies = (await reading.exec()) ?? [];
  wanted.forEach(({ candidate, size }, i) => {
    const [error, reply] = replies[i] ?? [null, []];
    if (error) throw error;
    const values = reply as (string | null)[];
    // Every field missing: the job was removed between the two reads.
    if (values.every((value) => value === null)) return;
    const merged = { ...candidate.fields };
    values.forEach((value, f) => {
      if (value !== null) merged[fields[f]!] = value;
    });
    done.bytes += size;
    done.jobs.push({ ...candidate, fields: merged });
  });
  return done;
}
