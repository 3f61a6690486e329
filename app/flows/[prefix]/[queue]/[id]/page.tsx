import Link from 'next/link';
import { FlowGraphView } from '@/components/flow/flow-graph';
import { jobPageHref } from '@/components/job/hrefs';
import { decodeParam } from '@/components/job/decode-param';

export default async function FlowPage({
  params,
}: {
  params: Promise<{ prefix: string; queue: string; id: string }>;
}) {
  const raw = await params;
  const flow = {
    prefix: decodeParam(raw.prefix),
    queue: decodeParam(raw.queue),
    id: decodeParam(raw.id),
  };
  return (
    <>
      <p className="breadcrumb">
        <Link href={jobPageHref(flow.prefix, flow.queue, flow.id)}>
          Back to job {flow.queue}:{flow.id}
        </Link>
      </p>
      <h1>Flow of job {flow.id}</h1>
      <FlowGraphView flow={flow} />
    </>
  );
}
