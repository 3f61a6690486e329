'use client';
/** The queue page: header, diagnosis, actions, limits, search, state tabs. */
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useState } from 'react';
import type { QueueCountState } from '@/lib/api-types';
import { grafanaQueueHref } from '@/lib/links';
import { IntegrityLink } from '../integrity/integrity-link';
import { ExternalLink } from '../layout/external-link';
import { QueueNotificationsPanel } from '../notifications/queue-notifications';
import { useConsoleLinks } from '../session/session-context';
import { DiagnosisPanel } from './diagnosis-panel';
import { FailedJobs } from './failed-jobs';
import { GroupsPanel } from './groups-panel';
import { JobList } from './job-list';
import { JobSearch } from './job-search';
import { LimitsPanel } from './limits-panel';
import { LiveWorkersPanel } from './live-workers-panel';
import { QueueActions } from './queue-actions';
import { SchedulersPanel } from './schedulers-panel';
import { STATE_TABS, StateTabs } from './state-tabs';
import { useQueueOverview } from './use-queue-page';

/** The state named by `?state=`, when it is one. */
function stateParam(value: string | null): QueueCountState | null {
  return STATE_TABS.find((tab) => tab.state === value)?.state ?? null;
}

/** The first tab with jobs in it (tab order), so the page never opens on an empty list needlessly. */
function firstNonEmptyState(counts: Record<QueueCountState, number>): QueueCountState {
  return STATE_TABS.find((tab) => counts[tab.state] > 0)?.state ?? 'waiting';
}

export function QueuePage({ prefix, name }: { prefix: string; name: string }) {
  const fromUrl = stateParam(useSearchParams().get('state'));
  const [picked, setPicked] = useState<QueueCountState | null>(null);
  // Chosen once, from the first counts: later polls must not move the page to another tab.
  const [opened, setOpened] = useState<QueueCountState | null>(null);
  const { data, error } = useQueueOverview(prefix, name);
  if (fromUrl === null && opened === null && data) setOpened(firstNonEmptyState(data.counts));
  const state = picked ?? fromUrl ?? opened;
  const select = (next: QueueCountState) => {
    setPicked(next);
    // The URL names the tab so it can be shared or reloaded; no navigation, no refetch.
    const url = new URL(window.location.href);
    url.searchParams.set('state', next);
    window.history.replaceState(window.history.state, '', url);
  };
  const dashboard = grafanaQueueHref(useConsoleLinks().grafanaUrl, prefix, name);
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load queue {name}: {error.message}
      </p>
    );
  }
  return (
    <div className="queue-page" data-queue={name}>
      <p>
        <Link href="/">← All queues</Link>
        {dashboard && (
          <>
            {' · '}
            <ExternalLink href={dashboard} testId="grafana-queue-link">
              Grafana dashboard
            </ExternalLink>
          </>
        )}
        <IntegrityLink prefix={prefix} name={name} />
      </p>
      <h1>
        <span className="prefix">{prefix}:</span>
        {name} {data?.paused && <span className="badge paused">Paused</span>}
        {data?.rateLimited && <span className="badge limited">Rate limited</span>}
      </h1>
      <div className="queue-panels">
        <DiagnosisPanel prefix={prefix} name={name} />
        <QueueActions prefix={prefix} name={name} paused={data?.paused ?? false} />
        <LimitsPanel prefix={prefix} name={name} />
        <QueueNotificationsPanel prefix={prefix} name={name} />
      </div>
      <LiveWorkersPanel prefix={prefix} name={name} />
      <SchedulersPanel prefix={prefix} name={name} />
      <GroupsPanel prefix={prefix} name={name} />
      {/* Searches start in the open tab's state, so the search waits for it too. */}
      {state !== null && <JobSearch prefix={prefix} name={name} state={state} />}
      <section className="panel" aria-label="Jobs">
        {state === null ? (
          <p aria-live="polite">Loading jobs…</p>
        ) : (
          <>
            <StateTabs counts={data?.counts} selected={state} onSelect={select} />
            {state === 'failed' ? (
              <FailedJobs prefix={prefix} name={name} />
            ) : (
              <JobList key={state} prefix={prefix} name={name} state={state} />
            )}
          </>
        )}
      </section>
    </div>
  );
}
