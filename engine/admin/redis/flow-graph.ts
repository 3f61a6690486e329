import type { RedisClient } from '../../backend/redis/connection';
import { DEFAULTS } from '../../defaults';
import { ValidationError } from '../../errors';
import {
  CHILDREN_START,
  decodeChildCursor,
  encodeChildCursor,
  planChildPage,
  type ChildCursor,
  type ChildStatus,
} from '../../backend/redis/child-pages';
import { CommandBatch } from '../../backend/redis/command-batch';
import { positiveInteger } from '../../flow/reader';
import { jobRef, parseJobKey, type JobRef } from '../../job/key';
import { planChildCount, planNodeInfo, totalChildren, type FlowNodeInfo } from './flow-node-info';
import type { RedactionRules } from '../redaction';

/**
 * The console's view of a flow as nodes and edges, read level by level with one pipelined
 * round trip per level and never more than asked for: at most `maxChildrenPerNode` children of
 * a node, `depth` levels and `maxNodes` nodes per call. A node whose children were not all
 * read carries a `childrenCursor`; getFlowChildren (one node) and expandFlowGraph (a whole
 * level of them) continue from there, so a 10,000-node flow is drawn a level or a page at a time.
 */

export interface FlowGraphNode extends FlowNodeInfo {
  /** Levels below the node the view started from (the root of getFlowGraph is 0). */
  level: number;
  /** Set when the node has children this view does not hold: hand it to getFlowChildren. */
  childrenCursor?: string;
}

/** Parent → child; `status` says which of the parent's child collections lists the child. */
export interface FlowGraphEdge {
  from: string;
  to: string;
  status: ChildStatus;
}

export interface FlowGraph {
  rootKey: string;
  /** Breadth first: the root, then level 1 in bullmq's child order, and so on. */
  nodes: FlowGraphNode[];
  edges: FlowGraphEdge[];
  /** True when some node's children were left out (by depth, maxChildrenPerNode or maxNodes). */
  truncated: boolean;
}

export const FLOW_GRAPH_DEFAULTS = {
  depth: 10,
  maxChildrenPerNode: 20,
  maxNodes: 1_000,
} as const;

/** The most one call may ask for, whatever the caller says. */
export const FLOW_GRAPH_LIMITS = {
  maxChildrenPerNode: 1_000,
  maxNodes: 10_000,
  /** Parent links rootOf follows at most. */
  maxHops: 10_000,
} as const;

export interface FlowGraphOptions {
  prefix?: string;
  queueName: string;
  jobId: string;
  /** Levels to read, the root counting as one. */
  depth?: number;
  maxChildrenPerNode?: number;
  maxNodes?: number;
  /** Rules for the nodes' failure reasons (the defaults when not given). */
  redaction?: RedactionRules;
}

/** A bounded view of the flow under one job; undefined when that job does not exist. */
export async function getFlowGraph(
  client: RedisClient,
  opts: FlowGraphOptions,
): Promise<FlowGraph | undefined> {
  if (!opts || typeof opts !== 'object') throw new ValidationError('getFlowGraph needs options');
  const limits = walkLimits(opts.depth ?? FLOW_GRAPH_DEFAULTS.depth, opts);
  const root = jobRef(opts.prefix ?? DEFAULTS.prefix, opts.queueName, opts.jobId);
  const walked = await walk(
    client,
    [{ ref: root, level: 0, cursor: CHILDREN_START, describe: true }],
    { ...limits, levels: limits.levels - 1 },
    opts.redaction,
  );
  if (!walked.nodes[0] || walked.nodes[0].missing) return undefined;
  return {
    rootKey: root.key,
    nodes: walked.nodes,
    edges: walked.edges,
    truncated: walked.truncated,
  };
}

export interface FlowChildrenOptions {
  /** Full key of the parent job. */
  parentKey: string;
  /** A node's childrenCursor or a previous page's cursor; omitted for the first page. */
  cursor?: string;
  /** Most children on the page (default 20). */
  count?: number;
  /** The parent's level, so the children get theirs (default 0). */
  level?: number;
  /** Rules for the nodes' failure reasons (the defaults when not given). */
  redaction?: RedactionRules;
}

export interface FlowChildrenPage {
  parentKey: string;
  nodes: FlowGraphNode[];
  edges: FlowGraphEdge[];
  /** Where the next page starts; absent once every child was listed. */
  cursor?: string;
}

/**
 * The next page of one parent's children, each described as a graph node (with its own
 * childrenCursor when it has children). Paging from the first page until `cursor` is absent
 * lists every child of a parent that does not change meanwhile exactly once; a page may hold
 * fewer than `count` children (even none) while a cursor remains.
 */
export async function getFlowChildren(
  client: RedisClient,
  opts: FlowChildrenOptions,
): Promise<FlowChildrenPage> {
  if (!opts || typeof opts !== 'object') throw new ValidationError('getFlowChildren needs options');
  const count = bounded(
    opts.count ?? FLOW_GRAPH_DEFAULTS.maxChildrenPerNode,
    'count',
    'maxChildrenPerNode',
  );
  const expanded = await expandFlowGraph(client, {
    parents: [{ key: opts.parentKey, cursor: opts.cursor, level: opts.level }],
    depth: 1,
    maxChildrenPerNode: count,
    maxNodes: count,
    redaction: opts.redaction,
  });
  const page: FlowChildrenPage = {
    parentKey: opts.parentKey,
    nodes: expanded.nodes,
    edges: expanded.edges,
  };
  const cursor = expanded.parents[0]?.childrenCursor;
  if (cursor !== undefined) page.cursor = cursor;
  return page;
}

export interface ExpandFlowOptions {
  /** Nodes to continue from: their key, childrenCursor (omitted: from the first child), level. */
  parents: { key: string; cursor?: string; level?: number }[];
  /** Levels to read below the parents (default 1). */
  depth?: number;
  maxChildrenPerNode?: number;
  maxNodes?: number;
  /** Rules for the nodes' failure reasons (the defaults when not given). */
  redaction?: RedactionRules;
}

export interface ExpandedFlow {
  /** The nodes read below the parents (the parents themselves are not repeated). */
  nodes: FlowGraphNode[];
  edges: FlowGraphEdge[];
  /** Each parent's cursor after this call; absent once all its children were read. */
  parents: { key: string; childrenCursor?: string }[];
  truncated: boolean;
}

/** Continues a graph below many nodes at once (e.g. its whole last level), one round trip a level. */
export async function expandFlowGraph(
  client: RedisClient,
  opts: ExpandFlowOptions,
): Promise<ExpandedFlow> {
  if (!opts || typeof opts !== 'object' || !Array.isArray(opts.parents))
    throw new ValidationError('expandFlowGraph needs a parents array');
  const limits = walkLimits(opts.depth ?? 1, opts);
  if (opts.parents.length > limits.maxNodes)
    throw new ValidationError(`at most ${limits.maxNodes} parents per call`);
  const start = opts.parents.map((parent) => {
    const ref = typeof parent?.key === 'string' ? parseJobKey(parent.key) : undefined;
    if (!ref) throw new ValidationError(`"${parent?.key}" is not a job key`);
    const level = parent.level ?? 0;
    if (!Number.isSafeInteger(level) || level < 0)
      throw new ValidationError('level must be a non-negative integer');
    return { ref, level, cursor: decodeChildCursor(parent.cursor), describe: false };
  });
  const walked = await walk(client, start, limits, opts.redaction);
  return {
    nodes: walked.nodes,
    edges: walked.edges,
    parents: start.map(({ ref }) => {
      const cursor = walked.cursors.get(ref.key);
      return cursor === undefined ? { key: ref.key } : { key: ref.key, childrenCursor: cursor };
    }),
    truncated: walked.truncated,
  };
}

// ---- the walk ------------------------------------------------------------------------------

interface WalkItem {
  ref: JobRef;
  level: number;
  /** Where this node's children continue. */
  cursor: ChildCursor;
  /** Read the node itself (new nodes), or only its children (nodes the caller already has). */
  describe: boolean;
}

interface WalkLimits {
  /** Child levels to read below the start items. */
  levels: number;
  maxChildrenPerNode: number;
  maxNodes: number;
}

interface Walked {
  nodes: FlowGraphNode[];
  edges: FlowGraphEdge[];
  truncated: boolean;
  /** Children cursors of the start items that were not described (encoded; absent when done). */
  cursors: Map<string, string | undefined>;
}

async function walk(
  client: RedisClient,
  start: WalkItem[],
  limits: WalkLimits,
  redaction?: RedactionRules,
): Promise<Walked> {
  const out: Walked = { nodes: [], edges: [], truncated: false, cursors: new Map() };
  const seen = new Set(start.map((item) => item.ref.key));
  let level = start;
  for (let levelsLeft = limits.levels; level.length > 0; levelsLeft--) {
    // Room for children once this level's own nodes are counted.
    let room = limits.maxNodes - out.nodes.length - level.filter((item) => item.describe).length;
    const perNode = Math.min(limits.maxChildrenPerNode, room);
    const batch = new CommandBatch();
    const plans = level.map((item) => {
      const fromStart = isStart(item.cursor);
      return {
        item,
        fromStart,
        describe: item.describe ? planNodeInfo(batch, item.ref, redaction) : undefined,
        // A node the caller already has, listed from its first child: its counts tell when
        // the listing is complete (a scan may stop short of its end with a cursor left).
        counts: !item.describe && fromStart ? planChildCount(batch, item.ref.key) : undefined,
        page:
          levelsLeft > 0 && perNode > 0
            ? planChildPage(batch, item.ref.key, item.cursor, perNode)
            : undefined,
      };
    });
    const replies = await batch.run(client);

    const next: WalkItem[] = [];
    for (const { item, fromStart, describe, counts, page } of plans) {
      const node: FlowGraphNode | undefined = describe && {
        ...describe(replies),
        level: item.level,
      };
      if (node) out.nodes.push(node);
      if (node && node.missing) continue;
      let after: ChildCursor | undefined = item.cursor;
      let listed = 0;
      if (page) {
        const read = page(replies, Math.max(0, Math.min(perNode, room)));
        for (const child of read.children) {
          const ref = parseJobKey(child.key);
          if (!ref) continue;
          listed++;
          out.edges.push({ from: item.ref.key, to: child.key, status: child.status });
          if (seen.has(child.key)) continue; // a malformed flow listing a job twice
          seen.add(child.key);
          next.push({ ref, level: item.level + 1, cursor: CHILDREN_START, describe: true });
          room--;
        }
        after = read.next;
      }
      const count = node?.childCount ?? counts?.(replies);
      if (fromStart && count && listed >= totalChildren(count)) after = undefined;
      const encoded = after && encodeChildCursor(after);
      if (encoded) out.truncated = true;
      if (node) {
        if (encoded) node.childrenCursor = encoded;
      } else {
        out.cursors.set(item.ref.key, encoded);
      }
    }
    level = next;
  }
  return out;
}

function isStart(cursor: ChildCursor): boolean {
  return (
    cursor.phase === 0 && cursor.scan === '0' && cursor.skip === 0 && cursor.carry.length === 0
  );
}

function walkLimits(
  depth: number,
  opts: { maxChildrenPerNode?: number; maxNodes?: number },
): WalkLimits {
  return {
    levels: positiveInteger(depth, 'depth'),
    maxChildrenPerNode: bounded(
      opts.maxChildrenPerNode ?? FLOW_GRAPH_DEFAULTS.maxChildrenPerNode,
      'maxChildrenPerNode',
      'maxChildrenPerNode',
    ),
    maxNodes: bounded(opts.maxNodes ?? FLOW_GRAPH_DEFAULTS.maxNodes, 'maxNodes', 'maxNodes'),
  };
}

function bounded(value: unknown, name: string, limit: 'maxChildrenPerNode' | 'maxNodes'): number {
  const n = positiveInteger(value, name);
  if (n > FLOW_GRAPH_LIMITS[limit])
    throw new ValidationError(`${name} must be at most ${FLOW_GRAPH_LIMITS[limit]}`);
  return n;
}

// ---- the root ------------------------------------------------------------------------------

export interface FlowRoot {
  /** Full key of the topmost job reached. */
  rootKey: string;
  /** Parent links followed. */
  hops: number;
  /**
   * True when the root has no parent. False when the climb stopped early: after maxHops, at a
   * parent that no longer exists, or at a cycle of parent links (only corrupt data has one).
   */
  reachedTop: boolean;
}

/** Climbs `parentKey` links from a job to the root of its flow, one HMGET per level. */
export async function rootOf(
  client: RedisClient,
  jobKey: string,
  opts: { maxHops?: number } = {},
): Promise<FlowRoot | undefined> {
  if (typeof jobKey !== 'string' || !parseJobKey(jobKey))
    throw new ValidationError(`"${jobKey}" is not a job key`);
  const maxHops = positiveInteger(opts.maxHops ?? FLOW_GRAPH_LIMITS.maxHops, 'maxHops');
  if (maxHops > FLOW_GRAPH_LIMITS.maxHops)
    throw new ValidationError(`maxHops must be at most ${FLOW_GRAPH_LIMITS.maxHops}`);
  const visited = new Set<string>();
  let current = jobKey;
  for (let hops = 0; ; hops++) {
    // `timestamp` is on every job hash: it tells a job without a parent from a missing job.
    const [parentKey, timestamp] = await client.hmget(current, 'parentKey', 'timestamp');
    if (parentKey == null && timestamp == null) {
      // The start job is missing, or the last parent link points at a removed job.
      const below = [...visited].at(-1);
      return below === undefined
        ? undefined
        : { rootKey: below, hops: hops - 1, reachedTop: false };
    }
    visited.add(current);
    if (!parentKey) return { rootKey: current, hops, reachedTop: true };
    if (hops === maxHops || visited.has(parentKey))
      return { rootKey: current, hops, reachedTop: false };
    current = parentKey;
  }
}
