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
export {
  escapeGlob,
  getQueueOverview,
  listQueues,
  pauseQueue,
  QUEUE_COUNT_STATES,
  QUEUE_SCAN_DEFAULTS,
  queueExists,
  resumeQueue,
} from './queues';
export type {
  ListQueuesOptions,
  QueueCountState,
  QueueList,
  QueueMetricsSeries,
  QueueOverview,
  QueueOverviewOptions,
  QueueRef,
  QueueWorker,
} from './queues';
export { MAX_QUEUE_HANDLES, queueHandle } from './queue-handle';
export {
  appendAudit,
  AUDIT_DEFAULTS,
  AUDIT_ID_PATTERN,
  AUDIT_STREAM_KEY,
  readAudit,
} from './audit';
export type { AuditEntry, AuditOutcome, AuditPage, AuditRecord } from './audit';
