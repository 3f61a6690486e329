import type { FlowStorage, StoredFlowNode } from '../backend/flow-storage';
import { DEFAULTS } from '../defaults';
import { ValidationError } from '../errors';
import { Job } from '../job/job';
import type { JobScope } from '../job/scope';
import { jobRef } from '../job/key';
import { QueueKeys } from '../queue/keys';

/**
 * Flows as trees of Jobs (parent/child, docs/redis-keys.md): how a job is named by its full key,
 * and the bounded reading of a tree that FlowProducer.getFlow answers with. The storage reads
 * (engine/backend/flow-storage.ts) return hashes; this turns them into Jobs.
 */

/** A job of a flow and its children, as FlowProducer.add and getFlow answer it. */
export interface JobNode {
  job: Job;
  children?: JobNode[];
}

// ---- readFlow ------------------------------------------------------------------------------

/** bullmq's getFlow options. */
export interface ReadFlowOptions {
  id: string;
  queueName: string;
  /** Defaults to `bull`; FlowProducer.getFlow passes its own prefix. */
  prefix?: string;
  /** Levels to read, the root counting as one (bullmq's default 10). */
  depth?: number;
  /** Most children listed per node, across its four child collections (bullmq's default 20). */
  maxChildren?: number;
}

export function positiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new ValidationError(`${name} must be a positive integer`);
  return value;
}

/**
 * The tree under one job, as bullmq 6.7.0's FlowProducer.getFlow returns it: `{ job, children }`
 * with children listed processed, unprocessed, failed (failParentOnFailure) then ignored, and no
 * `children` field on a node without children or on the last level read. Reads at most `depth`
 * levels, at most `maxChildren` children per node (for Redis, one round trip per level).
 *
 * Unlike bullmq, which lists up to `maxChildren` per collection (and whatever more a scan of a
 * small collection returns) and puts `undefined` in `children` for a child whose job is gone
 * (e.g. removed on completion), this lists at most `maxChildren` in all and leaves out missing
 * children. Undefined when the root does not exist.
 */
export async function readFlow(
  flows: FlowStorage,
  scopeFor: (keys: QueueKeys) => JobScope,
  opts: ReadFlowOptions,
): Promise<JobNode | undefined> {
  if (!opts || typeof opts !== 'object') throw new ValidationError('readFlow needs options');
  const depth = positiveInteger(opts.depth ?? 10, 'depth');
  const maxChildren = positiveInteger(opts.maxChildren ?? 20, 'maxChildren');
  const root = jobRef(opts.prefix ?? DEFAULTS.prefix, opts.queueName, opts.id);
  const tree = await flows.readTree(root, depth, maxChildren);
  return tree && toJobNode(tree, scopeFor);
}

function toJobNode(node: StoredFlowNode, scopeFor: (keys: QueueKeys) => JobScope): JobNode {
  const keys = new QueueKeys(node.ref.prefix, node.ref.queueName);
  const job = Job.fromHash(scopeFor(keys), node.ref.id, node.hash);
  if (!node.children) return { job };
  return { job, children: node.children.map((child) => toJobNode(child, scopeFor)) };
}
