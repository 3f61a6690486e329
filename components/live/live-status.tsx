'use client';
/**
 * Whether live events currently drive the cache. `live`: the event stream is open; `polling`:
 * it failed and polling carries the updates until it reconnects; `paused`: the tab is hidden;
 * `off`: no session (the login page).
 */
import { createContext, useContext } from 'react';

export type LiveStatus = 'off' | 'connecting' | 'live' | 'polling' | 'paused';

export const LiveStatusContext = createContext<LiveStatus>('off');

export function useLiveStatus(): LiveStatus {
  return useContext(LiveStatusContext);
}

const LABELS: Record<LiveStatus, string> = {
  off: 'Offline',
  connecting: 'Connecting…',
  live: 'Live',
  polling: 'Polling',
  paused: 'Paused (tab hidden)',
};

/** A small header badge; its title says what the state means for freshness. */
export function LiveStatusBadge() {
  const status = useLiveStatus();
  if (status === 'off') return null;
  const title =
    status === 'live'
      ? 'Updates arrive as queue events happen'
      : status === 'polling'
        ? 'The event stream is unavailable: refreshing on the polling interval'
        : undefined;
  return (
    <span className={`badge live-${status}`} data-testid="live-status" title={title}>
      {LABELS[status]}
    </span>
  );
}
