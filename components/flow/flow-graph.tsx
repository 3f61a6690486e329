'use client';
import { formatCount } from '@/lib/format-number';
import '@xyflow/react/dist/style.css';
import { Background, Controls, ReactFlow, type Edge } from '@xyflow/react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import type { FlowGraphEdge, FlowGraphNode } from '@/lib/api-types';
import { jobPageHref } from '../job/hrefs';
import { ExternalLink } from '../layout/external-link';
import { layeredPositions, NODE_INITIAL_HEIGHT, NODE_WIDTH } from './flow-layout';
import { JobNode, type JobFlowNode } from './flow-node';
import { fetchFlowChildren, useFlowGraph, type FlowRef } from './use-flow';

const NODE_TYPES = { job: JobNode };

/** Children pages loaded with "load more", kept across polls of the base graph. */
interface Loaded {
  nodes: Map<string, FlowGraphNode>;
  edges: FlowGraphEdge[];
  /** A node's cursor after its last page; undefined once all its children are loaded. */
  cursors: Map<string, string | undefined>;
}

const EMPTY: Loaded = { nodes: new Map(), edges: [], cursors: new Map() };

export function FlowGraphView({ flow }: { flow: FlowRef }) {
  const { data, error, isPending } = useFlowGraph(flow);
  const router = useRouter();
  const [loaded, setLoaded] = useState<Loaded>(EMPTY);
  const [loading, setLoading] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const merged = useMemo(() => {
    if (!data) return { nodes: [] as FlowGraphNode[], edges: [] as FlowGraphEdge[] };
    // The polled graph is fresher than a loaded page for the nodes it holds.
    const byKey = new Map(loaded.nodes);
    for (const node of data.graph.nodes) byKey.set(node.key, node);
    const edges = new Map<string, FlowGraphEdge>();
    for (const edge of [...data.graph.edges, ...loaded.edges])
      edges.set(`${edge.from}>${edge.to}`, edge);
    return { nodes: [...byKey.values()], edges: [...edges.values()] };
  }, [data, loaded]);

  const loadMore = async (node: FlowGraphNode, cursor: string | undefined) => {
    setLoading(node.key);
    setLoadError(null);
    try {
      const page = await fetchFlowChildren(node.key, cursor, node.level);
      setLoaded((prev) => {
        const nodes = new Map(prev.nodes);
        for (const child of page.nodes) nodes.set(child.key, child);
        const cursors = new Map(prev.cursors);
        cursors.set(node.key, page.cursor);
        return { nodes, edges: [...prev.edges, ...page.edges], cursors };
      });
    } catch (e) {
      setLoadError(e instanceof Error ? e.message : String(e));
    } finally {
      setLoading(null);
    }
  };

  const positions = useMemo(() => layeredPositions(merged.nodes), [merged.nodes]);
  const nodes: JobFlowNode[] = merged.nodes.map((node) => {
    const cursor = loaded.cursors.has(node.key)
      ? loaded.cursors.get(node.key)
      : node.childrenCursor;
    return {
      id: node.key,
      type: 'job',
      position: positions.get(node.key) ?? { x: 0, y: 0 },
      // Known size up front: React Flow hides a node until it has dimensions, and a node
      // re-created by a refetch may otherwise stay hidden until its size changes.
      initialWidth: NODE_WIDTH,
      initialHeight: NODE_INITIAL_HEIGHT,
      data: {
        job: node,
        loading: loading === node.key,
        onLoadMore: cursor === undefined ? undefined : () => void loadMore(node, cursor),
      },
    };
  });
  const edges: Edge[] = merged.edges.map((edge) => ({
    id: `${edge.from}>${edge.to}`,
    source: edge.from,
    target: edge.to,
    animated: edge.status === 'unprocessed',
  }));

  if (isPending) return <p aria-live="polite">Loading flow…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load the flow: {error.message}
      </p>
    );
  }
  return (
    <>
      {!data.root.reachedTop && (
        <p className="notice">
          The climb to the flow&apos;s root stopped early: this may not be its top.
        </p>
      )}
      {loadError && (
        <p role="alert" className="notice error">
          Could not load more: {loadError}
        </p>
      )}
      <p className="muted" data-testid="flow-summary">
        {formatCount(merged.nodes.length)} jobs drawn
        {nodes.some((node) => node.data.onLoadMore) &&
          ' · some have more children: use "Load more"'}
      </p>
      <div className="flow-canvas">
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          fitView
          nodesDraggable={false}
          nodesConnectable={false}
          onNodeClick={(_, node) =>
            router.push(
              jobPageHref(node.data.job.prefix, node.data.job.queueName, node.data.job.id),
            )
          }
          proOptions={{ hideAttribution: true }}
          colorMode="system"
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <details>
        <summary>Jobs in this flow as a list</summary>
        <ul>
          {merged.nodes.map((node) => (
            <li key={node.key} style={{ marginLeft: `${node.level * 1.2}rem` }}>
              <Link href={jobPageHref(node.prefix, node.queueName, node.id)}>
                {node.name || '(no name)'} · {node.queueName}:{node.id}
              </Link>{' '}
              <span className={`badge state-${node.state}`}>{node.state}</span>
              {node.traceUrl && (
                <>
                  {' '}
                  <ExternalLink href={node.traceUrl}>trace</ExternalLink>
                </>
              )}
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}
