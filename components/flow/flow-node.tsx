'use client';
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import type { FlowGraphNode } from '@/lib/api-types';
import { ExternalLink } from '../layout/external-link';
import { NODE_WIDTH } from './flow-layout';

type JobNodeData = {
  job: FlowGraphNode;
  /** Set when the node has children not loaded yet. */
  onLoadMore?: () => void;
  loading: boolean;
};

export type JobFlowNode = Node<JobNodeData, 'job'>;

/** One job: name, id, state colour; "Load more" when some of its children are not drawn. */
export function JobNode({ data }: NodeProps<JobFlowNode>) {
  const { job, onLoadMore, loading } = data;
  return (
    <div
      className={`flow-node state-${job.state}`}
      style={{ width: NODE_WIDTH }}
      data-testid="flow-node"
      data-job-key={job.key}
      data-state={job.state}
    >
      {/* Handles only anchor edges: not connectable, so xyflow gives them no pointer events
          (a connectable bottom handle sits over the "Load more" button and takes its click). */}
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <strong>{job.name || '(no name)'}</strong>
      <div className="muted flow-node-id" title={`${job.queueName}:${job.id}`}>
        {job.queueName}:{job.id}
      </div>
      <span className={`badge state-${job.state}`}>{job.missing ? 'removed' : job.state}</span>
      {job.traceUrl && (
        // nodrag, and no click through: a click on the node itself opens the job page.
        <span className="nodrag" onClick={(event) => event.stopPropagation()}>
          {' '}
          <ExternalLink href={job.traceUrl} testId="flow-node-trace">
            trace
          </ExternalLink>
        </span>
      )}
      {onLoadMore && (
        <button
          type="button"
          className="nodrag"
          disabled={loading}
          onClick={(event) => {
            event.stopPropagation();
            onLoadMore();
          }}
        >
          {loading ? 'Loading…' : 'Load more'}
        </button>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}
