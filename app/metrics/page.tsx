import { Suspense } from 'react';
import { AllQueuesHistoryView } from '@/components/metrics/history-view';

export default function MetricsPage() {
  return (
    <>
      <h1>Metrics</h1>
      <p>
        Throughput, failure rate, wait and run times and backlog of the listed queues, from the
        history OxMQ workers and the backlog sampler keep in Redis.
      </p>
      {/* The range and job name live in the URL query, which a static render cannot know. */}
      <Suspense fallback={<p aria-live="polite">Loading the history…</p>}>
        <AllQueuesHistoryView />
      </Suspense>
    </>
  );
}
