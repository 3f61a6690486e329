/**
 * The storage of flows: trees of jobs across the queues of one prefix, where a parent waits in
 * waiting-children until its children finish (docs/redis-keys.md). FlowProducer plans a flow
 * (ids, options, trace context) and hands the storage the nodes to write in one atomic step;
 * it reads trees back through `readTree`. The Redis implementation is
 * engine/backend/redis/flow-storage.ts.
 */
import type { JobRef } from '../job/key';
import type { NewJob, RawJobHash } from './queue-backend';
import type { QueueRef } from './queue-ref';

/** One node of a flow to write, parents before their children. */
export interface FlowNodeWrite {
  /** The node's queue. */
  queue: QueueRef;
  /** The job, with its custom id, its parent link (children) and `asParent` (parents). */
  job: NewJob;
  /** A root attached under an existing job, which must exist and may not be replaced. */
  external: boolean;
  /** Index (in the write) of the root of this node's flow: a refusal skips that whole flow. */
  flow: number;
}

/** Why a flow was not written. */
export type FlowRefusal =
  /** An external root's parent does not exist. */
  | 'parent-missing'
  /** A node's custom id belongs to a job under another parent. */
  | 'parent-taken'
  | { unknownCode: number };

/** What became of one node: its id (new, or the existing job's), or its flow's refusal. */
export type FlowNodeOutcome =
  | { id: string }
  | {
      refusal: FlowRefusal;
      /** Index (in the write) of the node whose check failed. */
      culprit: number;
    };

/** A job of a stored tree: its hash, and its children when that level was read. */
export interface StoredFlowNode {
  ref: JobRef;
  hash: RawJobHash;
  children?: StoredFlowNode[];
}

export interface FlowStorage {
  /**
   * Writes the nodes of one or more flows; each flow is atomic (all its nodes or none). Returns
   * one outcome per node, in order.
   */
  addFlows(nodes: FlowNodeWrite[], now: number): Promise<FlowNodeOutcome[]>;
  /**
   * The tree under `root`, bounded: at most `depth` levels (the root counting as one) and at
   * most `maxChildren` children per node, listed processed, pending, failed, then ignored.
   * Children whose job is gone are left out. Undefined when the root does not exist.
   */
  readTree(root: JobRef, depth: number, maxChildren: number): Promise<StoredFlowNode | undefined>;
}
