'use client';
import { formatCount } from '@/lib/format-number';
import type { KeyboardEvent } from 'react';
import type { QueueCountState } from '@/lib/api-types';

export const STATE_TABS: { state: QueueCountState; label: string }[] = [
  { state: 'waiting', label: 'Waiting' },
  { state: 'active', label: 'Active' },
  { state: 'delayed', label: 'Delayed' },
  { state: 'prioritized', label: 'Prioritized' },
  { state: 'waiting-children', label: 'Waiting children' },
  { state: 'completed', label: 'Completed' },
  { state: 'failed', label: 'Failed' },
];

/** WAI-ARIA tabs: arrow keys move between states, the selected tab is the one tab stop. */
export function StateTabs({
  counts,
  selected,
  onSelect,
}: {
  counts: Record<QueueCountState, number> | undefined;
  selected: QueueCountState;
  onSelect: (state: QueueCountState) => void;
}) {
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const at = STATE_TABS.findIndex((tab) => tab.state === selected);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = STATE_TABS[(at + step + STATE_TABS.length) % STATE_TABS.length];
    if (next) {
      onSelect(next.state);
      document.getElementById(`tab-${next.state}`)?.focus();
    }
  };
  return (
    <div role="tablist" aria-label="Job states" className="state-tabs">
      {STATE_TABS.map((tab) => (
        <button
          key={tab.state}
          id={`tab-${tab.state}`}
          type="button"
          role="tab"
          aria-selected={tab.state === selected}
          aria-controls="jobs-panel"
          tabIndex={tab.state === selected ? 0 : -1}
          data-state={tab.state}
          onClick={() => onSelect(tab.state)}
          onKeyDown={onKeyDown}
        >
          {tab.label}{' '}
          <span className="tab-count">{counts ? formatCount(counts[tab.state]) : '–'}</span>
        </button>
      ))}
    </div>
  );
}
