import Link from 'next/link';
import { decodeParam } from '@/components/job/decode-param';
import { JobView } from '@/components/job/job-view';

export default async function JobPage({
  params,
}: {
  params: Promise<{ prefix: string; name: string; id: string }>;
}) {
  const raw = await params;
  const job = {
    prefix: decodeParam(raw.prefix),
    name: decodeParam(raw.name),
    id: decodeParam(raw.id),
  };
  return (
    <>
      <p className="breadcrumb">
        <Link href={`/queues/${encodeURIComponent(job.prefix)}/${encodeURIComponent(job.name)}`}>
          {job.prefix}:{job.name}
        </Link>
      </p>
      <h1>Job {job.id}</h1>
      <JobView job={job} />
    </>
  );
}
