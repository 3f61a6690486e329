import Link from 'next/link';
import { Suspense } from 'react';
import { QueueHistoryView } from '@/components/metrics/history-view';

export default async function QueueMetricsPage({
  params,
}: {
  params: Promise<{ prefix: string; name: string }>;
}) {
  const { prefix, name } = await params;
  const queue = { prefix: safeDecode(prefix), name: safeDecode(name) };
  return (
    <>
      <p>
        <Link href="/metrics">← All metrics</Link> ·{' '}
        <Link
          href={`/queues/${encodeURIComponent(queue.prefix)}/${encodeURIComponent(queue.name)}`}
        >
          Queue page
        </Link>
      </p>
      <h1>
        Metrics of <span className="prefix">{queue.prefix}:</span>
        {queue.name}
      </h1>
      {/* The range and job name live in the URL query, which a static render cannot know. */}
      <Suspense fallback={<p aria-live="polite">Loading the history…</p>}>
        <QueueHistoryView prefix={queue.prefix} name={queue.name} />
      </Suspense>
    </>
  );
}

/** Route params may arrive still URI-encoded; a stray "%" must not crash the page. */
function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
