/**
 * The console's read and operate API (design.md §1, §3.3): bounded reads for views, never used
 * by the worker hot path. Route handlers in app/api/ call these through one server-only module.
 */
export {
  expandFlowGraph,
  FLOW_GRAPH_DEFAULTS,
  FLOW_GRAPH_LIMITS,
  getFlowChildren,
  getFlowGraph,
  rootOf,
} from './flow-graph';
export type {
  ExpandedFlow,
  ExpandFlowOptions,
  FlowChildrenOptions,
  FlowChildrenPage,
  FlowGraph,
  FlowGraphEdge,
  FlowGraphNode,
  FlowGraphOptions,
  FlowRoot,
} from './flow-graph';
export { FAILED_REASON_CHARS } from './flow-node-info';
export type { ChildCount, FlowNodeInfo, FlowNodeState } from './flow-node-info';
export type { ChildStatus } from '../flow-reader';
