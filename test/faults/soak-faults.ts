/**
 * The soak's faults (test/faults/soak.test.ts): which kind strikes next, finding a worker's
 * blocking connection to kill, and the recovery time of the jobs a SIGKILLed worker held.
 */
import type { Redis } from 'ioredis';
import { workerConnectionName, type Queue } from 'oxmq';
import { expect } from 'vitest';
import type { FaultWorker } from '../helpers/fault-worker';

export const FAULT_KINDS = ['sigkill', 'clientKill', 'pause', 'debugSleep'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The fault kinds in rounds, each a random order of all of them: every kind strikes often. */
export function faultSchedule(): () => FaultKind {
  let round: FaultKind[] = [];
  return () => {
    if (round.length === 0) round = [...FAULT_KINDS];
    return round.splice(Math.floor(Math.random() * round.length), 1)[0]!;
  };
}

/**
 * The CLIENT LIST id of `workerName`'s blocking connection (both libraries name it
 * `<prefix>:<base64 queue>:w:<worker name>`), or undefined while it reconnects.
 */
export async function blockingConnectionId(
  redis: Redis,
  queueName: string,
  workerName: string,
): Promise<string | undefined> {
  const name = workerConnectionName('bull', queueName, workerName);
  const list = (await redis.call('CLIENT', 'LIST')) as string;
  return list
    .split('\n')
    .find((line) => line.includes(` name=${name} `))
    ?.match(/^id=(\d+)/)?.[1];
}

/** A SIGKILL: when, the worker's name, and the jobs it had started and not reported completed. */
export interface Kill {
  at: number;
  victim: string;
  held: string[];
}

export function killRecord(victim: FaultWorker, at: number): Kill {
  const done = new Set(victim.reports('completed').map((m) => String(m.jobId)));
  const held = victim
    .reports('started')
    .map((m) => String(m.jobId))
    .filter((id) => !done.has(id));
  return { at, victim: victim.workerName, held };
}

/**
 * Per held job, ms from its kill to its first completion reported after it. A held job no worker
 * ever reported completed was completed by a killed worker whose report the SIGKILL cut off (the
 * victim, or a worker that ran it next and was killed too): its return value must name one.
 */
export async function killRecoveries(
  queue: Queue,
  kills: readonly Kill[],
  workers: readonly FaultWorker[],
): Promise<{ recoveries: number[]; completedUnreported: number }> {
  const completedAt = new Map<string, number[]>();
  for (const worker of workers) {
    for (const m of worker.reports('completed')) {
      const id = String(m.jobId);
      completedAt.set(id, [...(completedAt.get(id) ?? []), Number(m.at)]);
    }
  }
  const killed = kills.map(({ victim }) => victim);
  const recoveries: number[] = [];
  let completedUnreported = 0;
  for (const { at, held } of kills) {
    for (const id of held) {
      const reported = completedAt.get(id) ?? [];
      const later = reported.filter((time) => time > at);
      if (later.length > 0) recoveries.push(Math.min(...later) - at);
      else if (reported.length === 0) {
        completedUnreported += 1;
        const by = ((await queue.getJob(id))?.returnvalue as { by?: string } | undefined)?.by;
        expect(killed, `${id}: completed by`).toContain(by);
      }
      // Otherwise another worker completed it before the kill: a stalled run (assertDelivery
      // checks those), not a job the kill took away.
    }
  }
  return { recoveries, completedUnreported };
}
