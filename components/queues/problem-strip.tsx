'use client';
/** What is wrong, across the listed queues, most severe first, each linking to its queue. */
import Link from 'next/link';
import type { QueueOverview, QueueProblem } from '@/lib/api-types';

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;
const SEVERITY_LABELS = { critical: 'Critical', warning: 'Warning', info: 'Note' } as const;

const PROBLEM_LABELS: Record<QueueProblem['kind'], string> = {
  'no-worker': 'No worker',
  paused: 'Paused',
  'rate-limited': 'Rate-limited',
  'old-backlog': 'Old backlog',
  'failure-spike': 'Failure spike',
  'stalled-recently': 'Stalled jobs',
  'workers-missing-heartbeats': 'Workers missing',
};

export function queueHref(queue: { prefix: string; name: string }): string {
  return `/queues/${encodeURIComponent(queue.prefix)}/${encodeURIComponent(queue.name)}`;
}

export function ProblemStrip({ queues }: { queues: readonly QueueOverview[] }) {
  const rows = queues
    .flatMap((queue) => queue.problems.map((problem) => ({ queue, problem })))
    .sort(
      (a, b) =>
        SEVERITY_RANK[a.problem.severity] - SEVERITY_RANK[b.problem.severity] ||
        a.queue.name.localeCompare(b.queue.name),
    );
  return (
    <section className="problem-strip" aria-label="Problems" data-testid="problem-strip">
      {rows.length === 0 ? (
        <p className="problem-none">No problems in the queues listed.</p>
      ) : (
        <ul>
          {rows.map(({ queue, problem }) => (
            <li
              key={`${queue.prefix}:${queue.name}:${problem.kind}`}
              className={`problem ${problem.severity}`}
              data-queue={queue.name}
              data-kind={problem.kind}
            >
              <span className={`badge ${problem.severity}`}>
                <span className="visually-hidden">{SEVERITY_LABELS[problem.severity]}: </span>
                {PROBLEM_LABELS[problem.kind]}
              </span>{' '}
              <Link href={queueHref(queue)}>
                <span className="prefix">{queue.prefix}:</span>
                {queue.name}
              </Link>{' '}
              {problem.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
