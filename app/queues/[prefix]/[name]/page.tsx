import { Suspense } from 'react';
import { QueuePage } from '@/components/queue-page/queue-page';
import '@/components/queue-page/queue-page.css';

export default async function QueueRoutePage({
  params,
}: {
  params: Promise<{ prefix: string; name: string }>;
}) {
  const { prefix, name } = await params;
  return (
    // The open tab lives in the URL query (`?state=`), read on the client.
    <Suspense>
      <QueuePage prefix={safeDecode(prefix)} name={safeDecode(name)} />
    </Suspense>
  );
}

/** Segments may arrive still percent-encoded; a stray '%' must not crash the page. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
