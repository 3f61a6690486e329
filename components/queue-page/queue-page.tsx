'use client';
/** The queue page (issue 5 item 4): header, diagnosis, actions, limits, search, state tabs. */
import Link from 'next/link';
import { useState } from 'react';
import type { QueueCountState } from '@/lib/api-types';
import { grafanaQueueHref } from '@/lib/links';
import { ExternalLink } from '../layout/external-link';
import { useConsoleLinks } from '../session/session-context';
import { DiagnosisPanel } from './diagnosis-panel';
import { JobList } from './job-list';
import { JobSearch } from './job-search';
import { LimitsPanel } from './limits-panel';
import { QueueActions } from './queue-actions';
import { StateTabs } from './state-tabs';
import { useQueueOverview } from './use-queue-page';

export function QueuePage({ prefix, name }: { prefix: string; name: string }) {
  const [state, setState] = useState<QueueCountState>('waiting');
  const { data, error } = useQueueOverview(prefix, name);
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
      </div>
      <JobSearch prefix={prefix} name={name} state={state} />
      <section className="panel" aria-label="Jobs">
        <StateTabs counts={data?.counts} selected={state} onSelect={setState} />
        <JobList key={state} prefix={prefix} name={name} state={state} />
      </section>
    </div>
  );
}
