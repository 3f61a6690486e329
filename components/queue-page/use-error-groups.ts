'use client';
/**
 * Scans the queue's failed jobs into error groups, one bounded call after another (the server
 * answers a cursor, engine/admin/redis/error-groups.ts), merging each call's groups, until the
 * failed set is covered or the user stops it. Not polled: a scan reads thousands of job hashes, so
 * it runs when the view opens, when asked again, and after a group's bulk run.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ErrorGroupsResponse, ErrorGroupTally } from '@/lib/api-types';
import { mergeErrorGroups } from 'oxmq/admin';
import { ApiClientError, getJson } from '../api-client';
import { queuePath } from '../queues/use-queues';

type ErrorScanStatus = 'scanning' | 'done' | 'stopped' | 'error';

export interface ErrorGroupsView extends ErrorGroupTally {
  status: ErrorScanStatus;
  /** Failed jobs grouped so far, and in the queue at the last call. */
  grouped: number;
  total: number;
  error: string | null;
}

const EMPTY: ErrorGroupsView = {
  groups: [],
  other: 0,
  status: 'scanning',
  grouped: 0,
  total: 0,
  error: null,
};

/** How long to wait when the per-user scan budget is spent (429) before the next call. */
const THROTTLED_WAIT_MS = 1_000;

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

export function useErrorGroups(prefix: string, name: string) {
  const [view, setView] = useState<ErrorGroupsView>(EMPTY);
  const controller = useRef<AbortController | null>(null);
  const url = `${queuePath(prefix, name)}/error-groups`;

  const scan = useCallback(async () => {
    controller.current?.abort();
    const own = new AbortController();
    controller.current = own;
    setView(EMPTY);
    let tally: ErrorGroupTally = { groups: [], other: 0 };
    let cursor: string | null = null;
    try {
      while (!own.signal.aborted) {
        let answer: ErrorGroupsResponse;
        try {
          const query: string = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
          answer = await getJson<ErrorGroupsResponse>(`${url}${query}`, own.signal);
        } catch (caught) {
          if (caught instanceof ApiClientError && caught.status === 429 && !own.signal.aborted) {
            await pause(THROTTLED_WAIT_MS, own.signal);
            continue; // the same cursor again
          }
          throw caught;
        }
        if (own.signal.aborted) return;
        tally = mergeErrorGroups(tally, answer);
        cursor = answer.next;
        setView({
          ...tally,
          status: cursor === null ? 'done' : 'scanning',
          grouped: answer.to,
          total: answer.total,
          error: null,
        });
        if (cursor === null) return;
      }
    } catch (caught) {
      if (own.signal.aborted) return;
      setView((old) => ({
        ...old,
        status: 'error',
        error: caught instanceof Error ? caught.message : String(caught),
      }));
    }
  }, [url]);

  const stop = useCallback(() => {
    controller.current?.abort();
    setView((old) => (old.status === 'scanning' ? { ...old, status: 'stopped' } : old));
  }, []);

  useEffect(() => {
    void scan();
    return () => controller.current?.abort();
  }, [scan]);

  return { view, rescan: scan, stop };
}
