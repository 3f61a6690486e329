'use client';
/**
 * Download links for the current list or search result as JSON lines or CSV: plain GETs of the
 * export route (the session cookie goes along), streamed by the server, redacted and capped.
 */
import type { QueueCountState } from '@/lib/api-types';
import { queuePath } from '../queues/use-queues';

/** A search's filter, as the export route takes it (the search modes, not error groups). */
export interface ExportFilter {
  mode: 'name' | 'text' | 'path';
  query: string;
  path?: string;
}

function exportHref(
  prefix: string,
  name: string,
  opts: {
    state: QueueCountState;
    order: 'newest' | 'oldest';
    format: 'jsonl' | 'csv';
    filter?: ExportFilter;
  },
): string {
  const params = new URLSearchParams({ state: opts.state, order: opts.order, format: opts.format });
  if (opts.filter) {
    params.set('mode', opts.filter.mode);
    params.set('q', opts.filter.query);
    if (opts.filter.path !== undefined) params.set('path', opts.filter.path);
  }
  return `${queuePath(prefix, name)}/export?${params.toString()}`;
}

export function ExportLinks(props: {
  prefix: string;
  name: string;
  state: QueueCountState;
  order: 'newest' | 'oldest';
  filter?: ExportFilter;
  label: string;
}) {
  const { prefix, name, label, ...opts } = props;
  return (
    <span className="export-links" role="group" aria-label={label}>
      Export:{' '}
      <a href={exportHref(prefix, name, { ...opts, format: 'jsonl' })} download>
        JSON lines
      </a>
      {' · '}
      <a href={exportHref(prefix, name, { ...opts, format: 'csv' })} download>
        CSV
      </a>
    </span>
  );
}
