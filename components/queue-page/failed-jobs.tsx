'use client';
/**
 * The failed tab: the job list, or with "Group by error" the failed jobs grouped by error
 * (error-groups.tsx). The choice is kept in the URL (`?state=failed&group=error`) so a grouped
 * view can be shared or reloaded.
 */
import { useSearchParams } from 'next/navigation';
import { useState } from 'react';
import { ErrorGroups } from './error-groups';
import { JobList } from './job-list';

export function FailedJobs({ prefix, name }: { prefix: string; name: string }) {
  const fromUrl = useSearchParams().get('group') === 'error';
  const [picked, setPicked] = useState<boolean | null>(null);
  const grouped = picked ?? fromUrl;
  const toggle = () => {
    setPicked(!grouped);
    // No navigation, no refetch of the page: only the URL records the choice.
    const url = new URL(window.location.href);
    url.searchParams.set('state', 'failed');
    if (grouped) url.searchParams.delete('group');
    else url.searchParams.set('group', 'error');
    window.history.replaceState(window.history.state, '', url);
  };
  return (
    <>
      <label className="group-toggle">
        <input type="checkbox" checked={grouped} onChange={toggle} /> Group by error
      </label>
      {grouped ? (
        <div id="jobs-panel" role="tabpanel" aria-labelledby="tab-failed">
          <ErrorGroups prefix={prefix} name={name} />
        </div>
      ) : (
        <JobList prefix={prefix} name={name} state="failed" />
      )}
    </>
  );
}
