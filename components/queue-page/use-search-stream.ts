'use client';
/**
 * A streamed search (GET …/search/stream, NDJSON): rows arrive as the server finds them and the
 * progress line says how far it looked, so a needle at the far end of a million jobs is found
 * without the user asking to continue. A new search or stop() aborts the request, which ends
 * the server's walk too.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { JobRow, SearchStreamLine, SearchStreamStop } from '@/lib/api-types';
import { queuePath } from '../queues/use-queues';

type SearchStatus = 'idle' | 'running' | 'done' | 'stopped' | 'error';

export interface SearchStreamState {
  status: SearchStatus;
  rows: JobRow[];
  scanned: number;
  total: number;
  tooLarge: number;
  stoppedBy: SearchStreamStop;
  error: string | null;
}

const IDLE: SearchStreamState = {
  status: 'idle',
  rows: [],
  scanned: 0,
  total: 0,
  tooLarge: 0,
  stoppedBy: null,
  error: null,
};

/** Splits a byte stream into parsed lines, whatever the chunk boundaries. */
async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<SearchStreamLine> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    buffer += decoder.decode(value, { stream: !done });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const text = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (text !== '') yield JSON.parse(text) as SearchStreamLine;
      newline = buffer.indexOf('\n');
    }
    if (done) return;
  }
}

async function errorOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { message?: string };
    return body.message ?? `Search failed with ${response.status}`;
  } catch {
    return `Search failed with ${response.status}`;
  }
}

export function useSearchStream(prefix: string, name: string) {
  const [state, setState] = useState<SearchStreamState>(IDLE);
  const running = useRef<AbortController | null>(null);

  const stop = useCallback(() => {
    if (!running.current) return;
    running.current.abort();
    running.current = null;
    setState((s) => (s.status === 'running' ? { ...s, status: 'stopped' } : s));
  }, []);

  const start = useCallback(
    async (params: URLSearchParams) => {
      running.current?.abort();
      const controller = new AbortController();
      running.current = controller;
      setState({ ...IDLE, status: 'running' });
      const update = (change: (s: SearchStreamState) => SearchStreamState) => {
        if (running.current === controller) setState(change);
      };
      try {
        const response = await fetch(`${queuePath(prefix, name)}/search/stream?${params}`, {
          signal: controller.signal,
          headers: { Accept: 'application/x-ndjson' },
        });
        if (!response.ok || !response.body) {
          const message = await errorOf(response);
          update((s) => ({ ...s, status: 'error', error: message }));
          return;
        }
        for await (const line of readLines(response.body)) {
          if (line.type === 'matches') update((s) => ({ ...s, rows: [...s.rows, ...line.jobs] }));
          else if (line.type === 'progress') update((s) => ({ ...s, ...line }));
          else if (line.type === 'end') update((s) => ({ ...s, ...line, status: 'done' }));
          else update((s) => ({ ...s, status: 'error', error: line.message }));
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        const message = error instanceof Error ? error.message : String(error);
        update((s) => ({ ...s, status: 'error', error: `The search stopped: ${message}` }));
      } finally {
        if (running.current === controller) running.current = null;
      }
    },
    [prefix, name],
  );

  // Leaving the page ends the search.
  useEffect(() => () => running.current?.abort(), []);
  return { ...state, start, stop };
}
