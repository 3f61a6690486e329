/**
 * A layered layout: nodes are placed by their level in the graph, top to bottom, and a level
 * wider than MAX_PER_ROW wraps onto several rows so a node with hundreds of children stays
 * readable. Rows are centred. Good enough for trees (flows are trees), with no layout library.
 */
import type { FlowGraphNode } from '@/lib/api-types';

export const NODE_WIDTH = 190;
/** A node's height before React Flow has measured it (name, id, state badge, button). */
export const NODE_INITIAL_HEIGHT = 90;
const COLUMN_GAP = 30;
const ROW_HEIGHT = 110;
const LEVEL_GAP = 50;
const MAX_PER_ROW = 8;

export function layeredPositions(
  nodes: readonly FlowGraphNode[],
): Map<string, { x: number; y: number }> {
  const levels = new Map<number, FlowGraphNode[]>();
  for (const node of nodes) {
    const level = levels.get(node.level) ?? [];
    level.push(node);
    levels.set(node.level, level);
  }
  const widest = Math.min(MAX_PER_ROW, Math.max(1, ...[...levels.values()].map((l) => l.length)));
  const span = widest * (NODE_WIDTH + COLUMN_GAP);
  const positions = new Map<string, { x: number; y: number }>();
  let y = 0;
  for (const level of [...levels.keys()].sort((a, b) => a - b)) {
    const members = levels.get(level) ?? [];
    for (let start = 0; start < members.length; start += MAX_PER_ROW) {
      const row = members.slice(start, start + MAX_PER_ROW);
      const offset = (span - row.length * (NODE_WIDTH + COLUMN_GAP)) / 2;
      row.forEach((node, i) => {
        positions.set(node.key, { x: offset + i * (NODE_WIDTH + COLUMN_GAP), y });
      });
      y += ROW_HEIGHT;
    }
    y += LEVEL_GAP;
  }
  return positions;
}
