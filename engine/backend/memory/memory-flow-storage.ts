/**
 * FlowStorage in memory (the semantics of lua/addFlow-1.lua and of the Redis tree reads): each
 * flow of a write is checked whole before any node is stored, so it is written entirely or not
 * at all; trees are read back level by level, children in bullmq's getFlow order.
 */
import type { JobRef } from '../../job/key';
import { QueueKeys } from '../../queue/keys';
import type {
  FlowNodeOutcome,
  FlowNodeWrite,
  FlowRefusal,
  FlowStorage,
  StoredFlowNode,
} from '../flow-storage';
import type { MemoryJob } from './memory-queue';
import type { MemoryStore } from './memory-store';
import { insertJob } from './insert-job';
import { releaseParentIfDone } from './parents';

/** A node's children in bullmq's order: processed, pending, failed, then ignored. */
function childKeys(job: MemoryJob): string[] {
  return [
    ...job.processed.keys(),
    ...job.dependencies,
    ...job.unsuccessful.ids(),
    ...job.ignored.keys(),
  ];
}

function keysOf(node: FlowNodeWrite): QueueKeys {
  return new QueueKeys(node.queue.prefix, node.queue.name);
}

export class MemoryFlowStorage implements FlowStorage {
  constructor(private readonly store: MemoryStore) {}

  /** Why a node's flow cannot be written, checked before anything is. */
  private check(node: FlowNodeWrite): FlowRefusal | undefined {
    const parent = node.job.parent;
    if (!parent) return undefined;
    if (node.external && !this.store.jobAt(parent.key)) return 'parent-missing';
    if (node.job.customId === undefined) return undefined;
    const existing = this.store.queue(keysOf(node)).jobs.get(node.job.customId);
    const current = existing?.hash.parentKey;
    if (current !== undefined && current !== parent.key && this.store.jobAt(current)) {
      return 'parent-taken';
    }
    return undefined;
  }

  async addFlows(nodes: FlowNodeWrite[], now: number): Promise<FlowNodeOutcome[]> {
    const failed = new Map<number, { refusal: FlowRefusal; culprit: number }>();
    nodes.forEach((node, index) => {
      if (failed.has(node.flow)) return;
      const refused = this.check(node);
      if (refused) failed.set(node.flow, { refusal: refused, culprit: index });
    });
    const parents: { keys: QueueKeys; id: string }[] = [];
    const written = new Set<string>();
    const outcomes = nodes.map((node): FlowNodeOutcome => {
      const failure = failed.get(node.flow);
      if (failure) return failure;
      const queue = this.store.queue(keysOf(node));
      const parentWritten = node.job.parent !== undefined && written.has(node.job.parent.key);
      const result = insertJob(this.store, queue, node.job, now, {
        deferParentRelease: true,
        parentWritten,
      });
      // Unreachable after the checks above; a broken invariant fails loudly.
      if ('refusal' in result) throw new Error(`addFlows: node refused (${result.refusal})`);
      if (node.job.asParent && result.outcome !== 'duplicate') {
        parents.push({ keys: queue.keys, id: result.jobId });
      }
      written.add(queue.keys.job(result.jobId));
      return { id: result.jobId };
    });
    // Parents whose children were all complete already (duplicates of finished jobs) run now.
    for (const parent of parents) {
      const found = this.store.jobAt(parent.keys.job(parent.id));
      if (found) releaseParentIfDone(found, now);
    }
    return outcomes;
  }

  async readTree(
    root: JobRef,
    depth: number,
    maxChildren: number,
  ): Promise<StoredFlowNode | undefined> {
    const read = (ref: JobRef, levels: number): StoredFlowNode | undefined => {
      const found = this.store.jobAt(ref.key);
      if (!found) return undefined;
      const node: StoredFlowNode = { ref, hash: { ...found.job.hash } };
      if (levels <= 1) return node;
      const children = childKeys(found.job)
        .slice(0, maxChildren)
        .flatMap((key) => {
          const child = this.store.jobAt(key);
          if (!child) return [];
          const { prefix, queueName } = child.queue.keys;
          const childNode = read({ key, prefix, queueName, id: child.id }, levels - 1);
          return childNode ? [childNode] : [];
        });
      if (children.length > 0) node.children = children;
      return node;
    };
    return read(root, depth);
  }
}
