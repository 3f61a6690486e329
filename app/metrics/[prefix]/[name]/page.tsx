import Link from 'next/link';
import { QueueMetricsView } from '@/components/metrics/queue-metrics';

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
        <Link href="/metrics">← All metrics</Link>
      </p>
      <h1>
        Metrics of <span className="prefix">{queue.prefix}:</span>
        {queue.name}
      </h1>
      <QueueMetricsView prefix={queue.prefix} name={queue.name} />
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
