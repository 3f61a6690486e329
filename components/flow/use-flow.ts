'use client';
/** react-query hooks for the flows page: the bounded graph (polled) and "load more" pages. */
import { useQuery } from '@tanstack/react-query';
import type { FlowChildrenResponse, FlowGraphResponse } from '@/lib/api-types';
import { getJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { usePollingInterval } from '../settings/polling';

export interface FlowRef {
  prefix: string;
  queue: string;
  id: string;
}

export function useFlowGraph(flow: FlowRef) {
  const refetchInterval = usePollingInterval();
  const path = `/api/flows/${encodeURIComponent(flow.prefix)}/${encodeURIComponent(flow.queue)}/${encodeURIComponent(flow.id)}`;
  return useQuery({
    queryKey: queryKeys.flow.graph(flow.prefix, flow.queue, flow.id),
    queryFn: ({ signal }) => getJson<FlowGraphResponse>(`${path}?depth=4&maxNodes=200`, signal),
    refetchInterval,
  });
}

/** One page of a node's children; not cached: each "load more" continues from a cursor. */
export function fetchFlowChildren(
  parentKey: string,
  cursor: string | undefined,
  level: number,
): Promise<FlowChildrenResponse> {
  const query = new URLSearchParams({ parentKey, level: String(level), count: '20' });
  if (cursor) query.set('cursor', cursor);
  return getJson<FlowChildrenResponse>(`/api/flows/children?${query.toString()}`);
}
