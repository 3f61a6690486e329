/**
 * The flow of the flow-add and flow-process scenarios (docs/benchmarks.md, "Producers and
 * flows"): one tree shape, built the same for both libraries, and the pure checks of a processed
 * flow (children before parents). No I/O here, so test/engine/bench-harness.test.ts checks it.
 */

/** One node of a flow as the harness hands it to either library's FlowProducer.add. */
export interface BenchFlow {
  name: string;
  queueName: string;
  data: unknown;
  children?: BenchFlow[];
}

/** What an add returned: the created ids, as the tree was given. */
export interface BenchFlowNode {
  id: string;
  children?: BenchFlowNode[];
}

/**
 * Children per node at each level below the root: 1 root, 3 children, 12 grandchildren, 84
 * leaves, 100 nodes in all.
 */
export const FLOW_SHAPE: readonly number[] = [3, 4, 7];

/** Nodes of one flow of `shape`, root included. */
export function flowNodeCount(shape: readonly number[]): number {
  let total = 1;
  let level = 1;
  for (const branching of shape) {
    level *= branching;
    total += level;
  }
  return total;
}

/** Nodes of one flow that have children (they wait in waiting-children until run). */
export function flowParentCount(shape: readonly number[]): number {
  return flowNodeCount(shape) - shape.reduce((leaves, branching) => leaves * branching, 1);
}

/** Flow number `flow` of a run: every node in `queueName`, data naming its place. */
export function benchFlow(queueName: string, flow: number, shape: readonly number[]): BenchFlow {
  const build = (path: string, depth: number): BenchFlow => {
    const node: BenchFlow = {
      name: depth === 0 ? 'root' : 'node',
      queueName,
      data: { flow, path },
    };
    const branching = shape[depth];
    if (branching !== undefined) {
      node.children = Array.from({ length: branching }, (_, i) => build(`${path}.${i}`, depth + 1));
    }
    return node;
  };
  return build('0', 0);
}

export interface FlatFlow {
  root: string;
  ids: string[];
  /** Child ids of every node that has children. */
  childrenOf: Map<string, string[]>;
}

/** The ids of a created flow, and which node waits for which. */
export function flattenFlow(tree: BenchFlowNode): FlatFlow {
  const ids: string[] = [];
  const childrenOf = new Map<string, string[]>();
  const walk = (node: BenchFlowNode) => {
    ids.push(node.id);
    if (node.children?.length) {
      childrenOf.set(
        node.id,
        node.children.map((child) => child.id),
      );
      node.children.forEach(walk);
    }
  };
  walk(tree);
  return { root: tree.id, ids, childrenOf };
}

/**
 * Problems of a processing order: a parent whose processor ran before every one of its children
 * had run (the engine must hold a parent until its last child completed). `processed` is the
 * order of processor calls.
 */
export function flowOrderProblems(
  processed: readonly string[],
  childrenOf: ReadonlyMap<string, readonly string[]>,
): string[] {
  const seen = new Set<string>();
  const early: string[] = [];
  for (const id of processed) {
    const children = childrenOf.get(id);
    if (children && children.some((child) => !seen.has(child))) early.push(id);
    seen.add(id);
  }
  if (early.length === 0) return [];
  const shown = early.slice(0, 5).join(', ');
  return [`parent run before its children: ${shown} (${early.length})`];
}
