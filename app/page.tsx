import { Suspense } from 'react';
import { QueueOverviewList } from '@/components/queues/queue-overview';

export default function OverviewPage() {
  return (
    <>
      <h1>Queues</h1>
      {/* The sort and filter live in the URL query, which a static render cannot know. */}
      <Suspense fallback={<p aria-live="polite">Loading queues…</p>}>
        <QueueOverviewList />
      </Suspense>
    </>
  );
}
