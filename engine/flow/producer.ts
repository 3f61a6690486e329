import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { FlowRefusal, FlowStorage } from '../backend/flow-storage';
import { defaultStorage } from '../backend/default-storage';
import { checkStorageOption, type Storage, type StorageConnection } from '../backend/storage';
import { DEFAULTS, FLOW_LIMITS } from '../defaults';
import {
  ClosedError,
  ParentJobCannotBeReplacedError,
  ParentJobNotFoundError,
  UnexpectedReplyError,
  ValidationError,
} from '../errors';
import { Job } from '../job/job';
import type { JobsOptions } from '../job/options';
import type { JobScope } from '../job/scope';
import { readFlow, type JobNode, type ReadFlowOptions } from './reader';
import { clusterFlowPrefix, QueueKeys } from '../queue/keys';
import { prepareJob, withTraceCarrier, type PreparedJob } from '../job/prepare';
import type { QueueBaseOptions } from '../queue/options';
import type { JobSpan, JobTracer, TraceCarrier } from '../telemetry/job-tracer';
import { producerAttributes, producerParent, withProducerSpan } from '../telemetry/producer-spans';
import { ATTR, spanName } from '../telemetry/semconv';
import { tracerFor } from '../telemetry/tracing';

/**
 * With tracing on, every node of a flow gets a "create" span of its own, nested as the tree is,
 * so a parent's span can link to its children's. Past this many nodes the rest share their
 * nearest traced ancestor's context: a 10,000-node flow must not flood the exporter.
 */
const FLOW_NODE_SPAN_LIMIT = 500;

/** Most children a parent's processing span links to (their contexts ride in its hash). */
const FLOW_CHILD_LINK_LIMIT = 64;

/** One node of a flow: a job, and the jobs it waits for. */
export interface FlowJob {
  name: string;
  queueName: string;
  data?: unknown;
  /** Defaults to the producer's prefix; a cluster flow allows no other. */
  prefix?: string;
  opts?: JobsOptions;
  children?: FlowChildJob[];
}

/** A child's parent is its place in the tree, so `opts.parent` is not accepted there. */
export type FlowChildJob = Omit<FlowJob, 'opts'> & { opts?: Omit<JobsOptions, 'parent'> };

export interface FlowOpts {
  /** Per-queue default options, merged under each node's own options. */
  queuesOptions?: Record<string, { defaultJobOptions?: JobsOptions }>;
}

/** A created job and the nodes created under it. */
export type { JobNode } from './reader';

interface PlannedNode {
  flow: FlowJob;
  keys: QueueKeys;
  /** Replaced once by the node's trace context when tracing is on. */
  prepared: PreparedJob;
  jobId: string;
  /** Index of the parent in the plan; undefined for a root. */
  parentIndex?: number;
  /** A root attached under an existing job (opts.parent). */
  external: boolean;
}

/**
 * Adds trees of jobs across queues in one atomic script call: a parent waits in
 * waiting-children until its last child finishes, then runs with its children's results.
 * Node ids are `opts.jobId` or a UUID, as in bullmq 6.
 */
export class FlowProducer extends EventEmitter {
  readonly prefix: string;
  private readonly connection: StorageConnection;
  private readonly scopes = new Map<string, JobScope>();
  private readonly storage: Storage;
  private readonly flows: FlowStorage;
  private readonly tracer: JobTracer;
  /** Set once close() (or disconnect()) has begun, as bullmq's `closing`. */
  closing: Promise<void> | undefined;

  constructor(
    readonly opts: QueueBaseOptions,
    /** Set by forCluster: every node must use this producer's prefix. */
    private readonly clusterSafe = false,
  ) {
    super();
    if (!opts) throw new ValidationError('FlowProducer needs a connection option');
    checkStorageOption(opts.storage);
    this.prefix = opts.prefix ?? DEFAULTS.prefix;
    new QueueKeys(this.prefix, 'probe'); // validates the prefix
    this.tracer = tracerFor(opts.telemetry);
    this.storage = opts.storage ?? defaultStorage;
    this.connection = this.storage.connect({ role: 'flows', connection: opts.connection });
    this.connection.onError((error) => {
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
    this.flows = this.storage.flows({ connection: this.connection });
  }

  /**
   * A producer whose flows are safe on Redis Cluster: every queue of every flow shares the
   * prefix `{tag}:<prefix>`, so all their keys live in one hash slot.
   */
  static forCluster(tag: string, opts: QueueBaseOptions): FlowProducer {
    return new FlowProducer(
      { ...opts, prefix: clusterFlowPrefix(tag, opts.prefix ?? DEFAULTS.prefix) },
      true,
    );
  }

  /** The Job scope (backend and operations) of one queue, shared by the jobs it returns. */
  scopeFor(keys: QueueKeys): JobScope {
    let scope = this.scopes.get(keys.queueKey);
    if (!scope) {
      // The jobs it returns reach storage as a Queue's would (the flow's own add is one
      // atomic write across every queue of the flow, through FlowStorage).
      const storage = this.storage.queue({
        connection: this.connection,
        queue: { prefix: keys.prefix, name: keys.queueName },
      });
      scope = {
        name: keys.queueName,
        prefix: keys.prefix,
        backend: storage.backend,
        ops: storage.ops,
      };
      this.scopes.set(keys.queueKey, scope);
    }
    return scope;
  }

  /**
   * Adds one flow, atomically. Throws ParentJobNotFoundError (its root's outside parent is
   * missing) or ParentJobCannotBeReplacedError (a node's custom id belongs to another parent),
   * having written nothing.
   */
  async add(flow: FlowJob, opts: FlowOpts = {}): Promise<JobNode> {
    const [node] = await this.insert([flow], opts, true);
    return node!;
  }

  /**
   * Adds several flows in one call; every flow is atomic. Bad input anywhere is a
   * ValidationError and nothing is written. A flow that Redis-side checks refuse (as `add`
   * would) is skipped while the others are written, and its tree is still returned, as bullmq
   * 6.7's addBulk does; OxMQ also emits that refusal as an 'error' event when someone listens.
   */
  addBulk(flows: FlowJob[], opts: FlowOpts = {}): Promise<JobNode[]> {
    if (!Array.isArray(flows)) throw new ValidationError('addBulk expects an array of flows');
    return this.insert(flows, opts, false);
  }

  private async insert(flows: FlowJob[], opts: FlowOpts, single: boolean): Promise<JobNode[]> {
    if (this.closing) throw new ClosedError('FlowProducer is closed');
    if (flows.length === 0) return [];
    const plan: PlannedNode[] = [];
    const roots = flows.map((flow) => this.planNode(flow, opts, plan, undefined, new Set(), 0));
    if (!this.tracer.isEnabled()) {
      inheritTraceContext(plan);
      return this.write(plan, roots, single);
    }
    const root = plan[roots[0]!]!;
    return withProducerSpan(
      this.tracer,
      {
        name: spanName('send', root.keys.queueName),
        kind: 'producer',
        parent: flows.length === 1 ? producerParent(root.prepared.opts) : 'active',
        attributes: producerAttributes(
          { name: root.keys.queueName, prefix: root.keys.prefix },
          flows.length === 1 ? 'addFlow' : 'addBulkFlows',
          { [ATTR.flowNodes]: plan.length },
        ),
      },
      async (flowSpan) => {
        const nodeSpans = this.traceNodes(plan, flowSpan);
        try {
          return await this.write(plan, roots, single);
        } catch (error) {
          nodeSpans.forEach((span) => span.fail(error));
          throw error;
        } finally {
          nodeSpans.forEach((span) => span.end());
        }
      },
    );
  }

  /** Starts a create span per node (up to the limit) and writes each node's context into it. */
  private traceNodes(plan: PlannedNode[], flowSpan: JobSpan): JobSpan[] {
    const spans: JobSpan[] = [];
    const spanOf: (JobSpan | undefined)[] = [];
    const carriers: TraceCarrier[] = [];
    plan.forEach((node, index) => {
      const parentSpan = node.parentIndex === undefined ? flowSpan : spanOf[node.parentIndex];
      if (parentSpan && spans.length < FLOW_NODE_SPAN_LIMIT) {
        const span = parentSpan.run(() =>
          this.tracer.start({
            name: spanName('create', node.keys.queueName),
            kind: 'producer',
            parent: 'active',
            attributes: producerAttributes(
              { name: node.keys.queueName, prefix: node.keys.prefix },
              'create',
              { [ATTR.jobName]: node.flow.name, [ATTR.messageId]: node.jobId },
            ),
          }),
        );
        spans.push(span);
        spanOf[index] = span;
        carriers[index] = span.carrier();
      } else {
        carriers[index] =
          node.parentIndex === undefined ? flowSpan.carrier() : carriers[node.parentIndex]!;
      }
      node.prepared = withTraceCarrier(node.prepared, carriers[index]);
    });
    recordChildTraces(plan, carriers);
    return spans;
  }

  private async write(plan: PlannedNode[], roots: number[], single: boolean): Promise<JobNode[]> {
    // Parents come before their children in the plan, so a node's flow is its parent's.
    const flowOf: number[] = [];
    plan.forEach((node, i) => {
      flowOf[i] = node.parentIndex === undefined ? i : flowOf[node.parentIndex]!;
    });
    const outcomes = await this.flows.addFlows(
      plan.map((node, i) => ({
        queue: { prefix: node.keys.prefix, name: node.keys.queueName },
        job: {
          ...node.prepared.job,
          customId: node.jobId,
          asParent: (node.flow.children?.length ?? 0) > 0,
        },
        external: node.external,
        flow: flowOf[i]!,
      })),
      Date.now(),
    );
    for (const rootIndex of roots) {
      const outcome = outcomes[rootIndex]!;
      if (!('refusal' in outcome)) continue;
      const error = flowRefusal(outcome.refusal, plan[outcome.culprit] ?? plan[rootIndex]!);
      if (single) throw error;
      if (this.listenerCount('error') > 0) this.emit('error', error);
    }
    // A skipped flow's jobs carry the ids they would have had, as bullmq returns them.
    const created = plan.map((node, i) => {
      const outcome = outcomes[i]!;
      return this.toJob(node, 'id' in outcome ? outcome.id : node.jobId);
    });
    return roots.map((rootIndex) => buildTree(rootIndex, plan, created));
  }

  /** Depth-first, parents before children; returns the node's index in the plan. */
  private planNode(
    flow: FlowJob,
    opts: FlowOpts,
    plan: PlannedNode[],
    parentIndex: number | undefined,
    ancestors: Set<FlowJob>,
    depth: number,
  ): number {
    if (flow === null || typeof flow !== 'object')
      throw new ValidationError('a flow node must be an object');
    if (ancestors.has(flow)) throw new ValidationError(`flow has a cycle at node "${flow.name}"`);
    if (depth > FLOW_LIMITS.maxDepth)
      throw new ValidationError(`flow is deeper than ${FLOW_LIMITS.maxDepth} levels`);
    if (plan.length >= FLOW_LIMITS.maxNodes)
      throw new ValidationError(`flow has more than ${FLOW_LIMITS.maxNodes} nodes`);
    const children = flow.children ?? [];
    if (!Array.isArray(children)) throw new ValidationError('children must be an array');

    const prefix = flow.prefix ?? this.prefix;
    if (this.clusterSafe && prefix !== this.prefix) {
      throw new ValidationError(
        `node "${flow.name}" uses prefix "${prefix}", but every node of a cluster flow must use "${this.prefix}"`,
      );
    }
    const keys = new QueueKeys(prefix, flow.queueName);
    const parent = parentIndex === undefined ? undefined : plan[parentIndex]!;
    const nodeOpts: JobsOptions = { ...(flow.opts ?? {}) };
    if (parent) {
      if ((flow.opts as JobsOptions | undefined)?.parent) {
        throw new ValidationError(
          `child "${flow.name}" cannot set opts.parent: its parent is its place in the tree`,
        );
      }
      nodeOpts.parent = { id: parent.jobId, queue: parent.keys.queueKey };
    }
    if (children.length > 0 && (nodeOpts as Record<string, unknown>).deduplication !== undefined) {
      throw new ValidationError(`node "${flow.name}" has children and cannot use deduplication`);
    }
    const defaults = opts.queuesOptions?.[flow.queueName]?.defaultJobOptions ?? {};
    const prepared = prepareJob(flow.name, flow.data, nodeOpts, defaults);
    const outside = !parent ? prepared.opts.parent : undefined;
    if (this.clusterSafe && outside && !isQueueKeyUnder(outside.queue, this.prefix)) {
      throw new ValidationError(
        `the parent of "${flow.name}" is in "${outside.queue}", outside this cluster flow's prefix "${this.prefix}"`,
      );
    }
    const jobId = prepared.opts.jobId ?? randomUUID();
    if (plan.some((other) => other.jobId === jobId && other.keys.queueKey === keys.queueKey)) {
      throw new ValidationError(
        `job id "${jobId}" appears twice in queue ${flow.queueName} of this flow`,
      );
    }

    const index = plan.length;
    plan.push({
      flow,
      keys,
      prepared,
      jobId,
      parentIndex,
      external: !parent && nodeOpts.parent !== undefined,
    });
    ancestors.add(flow);
    for (const child of children)
      this.planNode(child as FlowJob, opts, plan, index, ancestors, depth + 1);
    ancestors.delete(flow);
    return index;
  }

  private toJob(node: PlannedNode, jobId: string): Job {
    const job = new Job(
      this.scopeFor(node.keys),
      node.flow.name,
      node.flow.data ?? {},
      node.prepared.opts,
      jobId,
      node.prepared.job.timestamp,
    );
    if (node.prepared.job.parent) {
      job.parentKey = node.prepared.job.parent.key;
      job.parent = node.prepared.job.parent.link;
    }
    job.traceparent = node.prepared.opts.traceparent;
    job.tracestate = node.prepared.opts.tracestate;
    return job;
  }

  /**
   * Reads a flow back as a tree, bounded: at most `depth` levels (default 10) and `maxChildren`
   * children per node (default 20), one round trip per level.
   */
  getFlow(opts: ReadFlowOptions): Promise<JobNode | undefined> {
    if (this.closing) return Promise.reject(new ClosedError('FlowProducer is closed'));
    return readFlow(this.flows, (keys) => this.scopeFor(keys), {
      ...opts,
      prefix: opts.prefix ?? this.prefix,
    });
  }

  /** Resolves once the connection answers. */
  async waitUntilReady(): Promise<void> {
    await this.connection.ready();
  }

  async close(): Promise<void> {
    this.closing ??= this.connection.close();
    await this.closing;
  }

  /** Drops the connection at once, without waiting for pending commands. */
  async disconnect(): Promise<void> {
    this.closing ??= this.connection.disconnect();
    await this.closing;
  }
}

/**
 * Each parent stores its children's contexts (hash field `childTraceparents`), so the span of
 * its processing can link to them without another read. Children past the span limit share an
 * ancestor's context; each context is listed once.
 */
function recordChildTraces(plan: PlannedNode[], carriers: TraceCarrier[]): void {
  const childContexts = new Map<number, Set<string>>();
  plan.forEach((node, index) => {
    const traceparent = carriers[index]?.traceparent;
    if (node.parentIndex === undefined || !traceparent) return;
    // Past the span limit a child carries its parent's own context: no link to itself.
    if (traceparent === carriers[node.parentIndex]?.traceparent) return;
    const contexts = childContexts.get(node.parentIndex) ?? new Set<string>();
    if (contexts.size < FLOW_CHILD_LINK_LIMIT) contexts.add(traceparent);
    childContexts.set(node.parentIndex, contexts);
  });
  for (const [index, contexts] of childContexts) {
    const node = plan[index]!;
    const fields = {
      ...node.prepared.job.fields,
      childTraceparents: JSON.stringify([...contexts]),
    };
    node.prepared = { ...node.prepared, job: { ...node.prepared.job, fields } };
  }
}

/**
 * Without tracing, a node with no context of its own carries its parent's, so a flow whose root
 * names a trace keeps every job of it in that trace (plan order is parents first).
 */
function inheritTraceContext(plan: PlannedNode[]): void {
  for (const node of plan) {
    if (node.parentIndex === undefined || node.prepared.opts.traceparent) continue;
    const parent = plan[node.parentIndex]!.prepared.opts;
    if (!parent.traceparent) continue;
    node.prepared = withTraceCarrier(node.prepared, {
      traceparent: parent.traceparent,
      tracestate: parent.tracestate,
    });
  }
}

function flowRefusal(refusal: FlowRefusal, node: PlannedNode): Error {
  const where = `node "${node.flow.name}" (${node.keys.queueName}:${node.jobId})`;
  if (refusal === 'parent-missing') {
    return new ParentJobNotFoundError(
      `The parent of ${where} does not exist; its flow was not added`,
    );
  }
  if (refusal === 'parent-taken') {
    return new ParentJobCannotBeReplacedError(
      `${where} already belongs to another parent; its flow was not added`,
    );
  }
  return new UnexpectedReplyError(`addFlow refused ${where} with ${refusal.unknownCode}`);
}

/** The returned tree, rebuilt from the plan (children in the order they were given). */
function buildTree(rootIndex: number, plan: PlannedNode[], jobs: Job[]): JobNode {
  const childrenOf = new Map<number, number[]>();
  plan.forEach((node, i) => {
    if (node.parentIndex === undefined) return;
    const siblings = childrenOf.get(node.parentIndex) ?? [];
    siblings.push(i);
    childrenOf.set(node.parentIndex, siblings);
  });
  const build = (index: number): JobNode => {
    const children = (childrenOf.get(index) ?? []).map(build);
    return children.length > 0 ? { job: jobs[index]!, children } : { job: jobs[index]! };
  };
  return build(rootIndex);
}

/** Whether `queueKey` (`<prefix>:<queueName>`) names a queue directly under `prefix`. */
function isQueueKeyUnder(queueKey: string, prefix: string): boolean {
  return queueKey.startsWith(`${prefix}:`) && !queueKey.slice(prefix.length + 1).includes(':');
}
