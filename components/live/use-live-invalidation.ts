'use client';
/**
 * useLiveInvalidation: keeps one EventSource on GET /api/events open while the tab is visible
 * and a user is signed in, and turns each `events` message into react-query invalidations
 * (coalesced, at most one flush per FLUSH_MS). When the stream errors it is closed and retried
 * with backoff; meanwhile the status is `polling`, which puts the regular polling interval
 * back in charge (components/settings/polling.tsx). Returns the status for the header badge.
 */
import { useQueryClient } from '@tanstack/react-query';
import { usePathname } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import type { LiveEventBatch, LiveEventsMessage } from '@/lib/api-types';
import { invalidateAfterGap, invalidateForBatches } from './invalidation';
import type { LiveStatus } from './live-status';

/** Invalidations are batched: a busy queue must not refetch on every single event. */
const FLUSH_MS = 500;
const RETRY_MIN_MS = 2_000;
const RETRY_MAX_MS = 60_000;

/** Pages about one queue watch just that queue; every other page watches them all. */
const QUEUE_PATH = /^\/(?:queues|metrics|flows|jobs)\/([^/]+)\/([^/]+)/;

function liveEventsUrl(pathname: string): string {
  const match = QUEUE_PATH.exec(pathname);
  if (!match) return '/api/events';
  // The pair format wants each part encoded exactly once, whichever form the path came in.
  const pair = [match[1]!, match[2]!].map((part) => encodeURIComponent(safeDecode(part))).join('/');
  return `/api/events?queues=${encodeURIComponent(pair)}`;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function useLiveInvalidation(enabled: boolean): LiveStatus {
  const client = useQueryClient();
  const pathname = usePathname();
  const url = liveEventsUrl(pathname ?? '/');
  const [status, setStatus] = useState<LiveStatus>(enabled ? 'connecting' : 'off');
  const pending = useRef<LiveEventBatch[]>([]);

  useEffect(() => {
    if (!enabled) {
      setStatus('off');
      return;
    }
    let source: EventSource | undefined;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    let retryMs = RETRY_MIN_MS;
    let stopped = false;

    const flush = () => {
      flushTimer = undefined;
      const batches = pending.current;
      pending.current = [];
      invalidateForBatches(client, batches);
    };
    const close = () => {
      source?.close();
      source = undefined;
      clearTimeout(retryTimer);
      retryTimer = undefined;
    };
    const open = () => {
      close();
      if (stopped) return;
      if (document.visibilityState === 'hidden') {
        setStatus('paused');
        return;
      }
      setStatus((current) => (current === 'polling' ? 'polling' : 'connecting'));
      const es = new EventSource(url);
      source = es;
      es.addEventListener('ready', () => {
        retryMs = RETRY_MIN_MS;
        setStatus('live');
        // Whatever happened while the stream was down (or before it opened) is fetched now.
        invalidateAfterGap(client);
      });
      es.addEventListener('events', (message: MessageEvent<string>) => {
        try {
          const data = JSON.parse(message.data) as LiveEventsMessage;
          pending.current.push(...data.batches);
        } catch {
          return; // a malformed message is skipped; the next one or a poll catches up
        }
        flushTimer ??= setTimeout(flush, FLUSH_MS);
      });
      es.onerror = () => {
        // Our own backoff instead of the browser's fixed retry (and EventSource gives up on 401).
        close();
        setStatus('polling');
        retryTimer = setTimeout(open, retryMs);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      };
    };
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') {
        close();
        setStatus('paused');
      } else {
        retryMs = RETRY_MIN_MS;
        open();
      }
    };

    open();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      document.removeEventListener('visibilitychange', onVisibility);
      close();
      clearTimeout(flushTimer);
    };
  }, [client, enabled, url]);

  return status;
}
