'use client';
/**
 * The integrity page's walk: one GET per step (the first on load, then "Continue" from the
 * cursor), the reports added up; and the admin's repair, POST steps from the start until the walk
 * is done, then a fresh check to show what is left.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type {
  IntegrityCheckResponse,
  IntegrityRepair,
  IntegrityRepairResponse,
  IntegrityReportBody,
} from '@/lib/api-types';
import { getJson, postJson } from '../api-client';
import { mergeReport } from './merge-report';

/** POST steps one repair click makes at most before it stops and says so. */
const MAX_REPAIR_STEPS = 200;

export interface IntegrityWalk {
  total: IntegrityReportBody | null;
  repairable: string[];
  /** True once the walk reached the end (no cursor left). */
  done: boolean;
  pending: 'check' | 'repair' | null;
  error: string | null;
  repairs: IntegrityRepair[] | null;
  repairIncomplete: boolean;
  continueWalk: () => void;
  restart: () => void;
  repair: () => void;
}

export function useIntegrity(prefix: string, name: string): IntegrityWalk {
  const url = `/api/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(name)}/integrity`;
  const [total, setTotal] = useState<IntegrityReportBody | null>(null);
  const [repairable, setRepairable] = useState<string[]>([]);
  const [pending, setPending] = useState<'check' | 'repair' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [repairs, setRepairs] = useState<IntegrityRepair[] | null>(null);
  const [repairIncomplete, setRepairIncomplete] = useState(false);
  const totalRef = useRef<IntegrityReportBody | null>(null);

  const step = useCallback(
    async (fresh: boolean) => {
      const cursor = fresh ? undefined : totalRef.current?.cursor;
      setPending('check');
      setError(null);
      try {
        const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
        const answer = await getJson<IntegrityCheckResponse>(`${url}${query}`);
        totalRef.current = mergeReport(fresh ? null : totalRef.current, answer.report);
        setTotal(totalRef.current);
        setRepairable(answer.repairable);
      } catch (caught) {
        setError((caught as Error).message);
      } finally {
        setPending(null);
      }
    },
    [url],
  );

  useEffect(() => {
    void step(true);
  }, [step]);

  const repair = useCallback(async () => {
    setPending('repair');
    setError(null);
    setRepairs(null);
    const made: IntegrityRepair[] = [];
    let cursor: string | null = null;
    let steps = 0;
    try {
      do {
        const body: { cursor?: string } = cursor ? { cursor } : {};
        const answer: IntegrityRepairResponse = await postJson(url, body);
        // A stretch walked again lists its report-only findings again: once is enough.
        for (const repair of answer.repairs) {
          const seen = made.some(
            (m) => !repair.applied && m.code === repair.code && m.jobId === repair.jobId,
          );
          if (!seen) made.push(repair);
        }
        cursor = answer.cursor;
        steps += 1;
      } while (cursor !== null && steps < MAX_REPAIR_STEPS);
      setRepairIncomplete(cursor !== null);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setRepairs(made);
      setPending(null);
    }
    await step(true);
  }, [url, step]);

  return {
    total,
    repairable,
    done: total !== null && total.cursor === undefined,
    pending,
    error,
    repairs,
    repairIncomplete,
    continueWalk: () => void step(false),
    restart: () => {
      setRepairs(null);
      void step(true);
    },
    repair: () => void repair(),
  };
}
