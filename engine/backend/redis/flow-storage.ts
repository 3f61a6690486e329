/**
 * Flows in Redis: lua/addFlow writes every node of a write in one script call (so each flow is
 * atomic), and trees are read one pipelined round trip per level (child-pages.ts).
 */
import { assertClusterSafeParent, assertClusterSafeQueue } from './cluster-slots';
import { QueueKeys } from '../../queue/keys';
import type { RedisClient } from './connection';
import { UnexpectedReplyError } from '../../errors';
import { parseJobKey, type JobRef } from '../../job/key';
import { scriptKeys } from '../../scripts/script-keys';
import type {
  FlowNodeOutcome,
  FlowNodeWrite,
  FlowRefusal,
  FlowStorage,
  StoredFlowNode,
} from '../flow-storage';
import { jobTable } from './add-job';
import { CHILDREN_START, planChildPage } from './child-pages';
import { CommandBatch } from './command-batch';
import { runScript } from './run-script';

/** The script's refusal codes (lua/addFlow). */
const REFUSALS: Record<number, FlowRefusal> = { [-5]: 'parent-missing', [-7]: 'parent-taken' };

interface LevelItem {
  ref: JobRef;
  parent?: StoredFlowNode;
}

export class RedisFlowStorage implements FlowStorage {
  constructor(private readonly client: RedisClient) {}

  async addFlows(nodes: FlowNodeWrite[], now: number): Promise<FlowNodeOutcome[]> {
    const keysOf = nodes.map((node) => new QueueKeys(node.queue.prefix, node.queue.name));
    // On a Cluster the script reaches every node's keys: they must share one hash slot.
    keysOf.forEach((keys, i) => {
      assertClusterSafeQueue(this.client, keys);
      assertClusterSafeParent(this.client, keys, nodes[i]!.job.parent?.link.queueKey);
    });
    const table = nodes.map((node, i) => ({
      ...jobTable(keysOf[i]!.base, node.job),
      external: node.external,
      flow: node.flow,
    }));
    const reply = await runScript(this.client, 'addFlow', scriptKeys('addFlow', keysOf[0]!), [
      JSON.stringify(table),
      now,
    ]);
    return parseFlowReply(reply, nodes.length);
  }

  async readTree(
    root: JobRef,
    depth: number,
    maxChildren: number,
  ): Promise<StoredFlowNode | undefined> {
    let result: StoredFlowNode | undefined;
    let level: LevelItem[] = [{ ref: root }];
    for (let depthLeft = depth; level.length > 0 && depthLeft > 0; depthLeft--) {
      const batch = new CommandBatch();
      const plans = level.map((item) => ({
        item,
        hash: batch.add('hgetall', item.ref.key),
        page:
          depthLeft > 1
            ? planChildPage(batch, item.ref.key, CHILDREN_START, maxChildren)
            : undefined,
      }));
      const replies = await batch.run(this.client);
      const nextLevel: LevelItem[] = [];
      for (const { item, hash, page } of plans) {
        const fields = replies[hash] as Record<string, string> | null;
        if (!fields || Object.keys(fields).length === 0) continue;
        const node: StoredFlowNode = { ref: item.ref, hash: fields };
        if (item.parent) (item.parent.children ??= []).push(node);
        else result = node;
        for (const child of page?.(replies).children ?? []) {
          const ref = parseJobKey(child.key);
          if (ref) nextLevel.push({ ref, parent: node });
        }
      }
      level = nextLevel;
    }
    return result;
  }
}

/** Per node: the id written (or found), or the refusal code and the 1-based culprit. */
function parseFlowReply(reply: unknown, count: number): FlowNodeOutcome[] {
  if (!Array.isArray(reply) || Number(reply[0]) !== 0 || reply.length !== 1 + 2 * count) {
    throw new UnexpectedReplyError(`addFlow replied ${JSON.stringify(reply)}`);
  }
  const outcomes: FlowNodeOutcome[] = [];
  for (let i = 1; i < reply.length; i += 2) {
    const flag = Number(reply[i + 1]);
    outcomes.push(
      flag < 0
        ? { refusal: REFUSALS[flag] ?? { unknownCode: flag }, culprit: Number(reply[i]) - 1 }
        : { id: String(reply[i]) },
    );
  }
  return outcomes;
}
