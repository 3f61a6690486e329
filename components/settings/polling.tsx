'use client';
/**
 * The polling interval, a user setting kept in localStorage. react-query pauses interval
 * refetches while the tab is hidden (refetchIntervalInBackground defaults to false).
 */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useLiveStatus } from '../live/live-status';

const POLLING_CHOICES = [
  { ms: 2_000, label: '2 s' },
  { ms: 5_000, label: '5 s' },
  { ms: 15_000, label: '15 s' },
  { ms: 60_000, label: '1 min' },
  { ms: 0, label: 'off' },
] as const;
const DEFAULT_POLLING_MS = 5_000;
const STORAGE_KEY = 'oxmq.pollingMs';

interface PollingSetting {
  /** 0 means polling is off. */
  intervalMs: number;
  setIntervalMs: (ms: number) => void;
}

const PollingContext = createContext<PollingSetting>({
  intervalMs: DEFAULT_POLLING_MS,
  setIntervalMs: () => undefined,
});

export function PollingProvider({ children }: { children: ReactNode }) {
  const [intervalMs, setIntervalMs] = useState(DEFAULT_POLLING_MS);
  useEffect(() => {
    const raw = window.localStorage.getItem(STORAGE_KEY);
    // Number(null) is 0, which would read as "off": only a stored choice counts.
    const stored = raw === null ? NaN : Number(raw);
    if (POLLING_CHOICES.some((choice) => choice.ms === stored)) setIntervalMs(stored);
  }, []);
  const update = (ms: number) => {
    setIntervalMs(ms);
    window.localStorage.setItem(STORAGE_KEY, String(ms));
  };
  return (
    <PollingContext.Provider value={{ intervalMs, setIntervalMs: update }}>
      {children}
    </PollingContext.Provider>
  );
}

/** The refetchInterval to give react-query: false when polling is off. */
export function usePollingInterval(): number | false {
  const { intervalMs } = useContext(PollingContext);
  // Polling is the fallback of live events (components/live/): while the event stream is open
  // it only runs as a slow safety net, for data no queue event announces.
  const live = useLiveStatus() === 'live';
  if (intervalMs <= 0) return false;
  return live ? Math.max(intervalMs, LIVE_SAFETY_POLL_MS) : intervalMs;
}

/**
 * For data no queue event announces (worker heartbeats): the user's interval as chosen, with
 * no slowdown while live events are open; false when polling is off.
 */
export function useUnannouncedPollingInterval(): number | false {
  const { intervalMs } = useContext(PollingContext);
  return intervalMs <= 0 ? false : intervalMs;
}

/** Polling interval while live events drive invalidation. */
const LIVE_SAFETY_POLL_MS = 30_000;

export function PollingSelect() {
  const { intervalMs, setIntervalMs } = useContext(PollingContext);
  return (
    <label>
      Refresh{' '}
      <select value={intervalMs} onChange={(event) => setIntervalMs(Number(event.target.value))}>
        {POLLING_CHOICES.map((choice) => (
          <option key={choice.ms} value={choice.ms}>
            {choice.label}
          </option>
        ))}
      </select>
    </label>
  );
}
