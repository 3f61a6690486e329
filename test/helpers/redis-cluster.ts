/**
 * A local Redis Cluster for tests: `masters` masters with `replicasPerMaster` replicas each, every
 * node a redis-server of its own on 127.0.0.1 in a temporary directory, joined by
 * `redis-cli --cluster create`. See docs/testing-deployments.md.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { freePort } from '../setup/redis-server';
import {
  ask,
  dataNodeArgs,
  HOST,
  info,
  startNode,
  stopAll,
  until,
  type DeploymentNode,
  type RedisAddress,
} from './redis-node';

const run = promisify(execFile);

/** A node's cluster bus listens on its port + 10000, so that port must be free (and exist) too. */
const BUS_OFFSET = 10_000;
/** Short, so that a killed master is failed over in seconds rather than the default 15 s. */
const NODE_TIMEOUT_MS = 2_000;
const SETTLE_MS = 20_000;

export interface RedisCluster {
  /** Every node started, masters and replicas, killed or not. */
  readonly nodes: RedisAddress[];
  /** The live nodes that are masters now. */
  masters(): Promise<RedisAddress[]>;
  /** The live nodes that replicate the master on `masterPort` now. */
  replicasOf(masterPort: number): Promise<RedisAddress[]>;
  /** The port of the master that holds `key`'s slot now, as a live node's slot table says. */
  masterOfKey(key: string): Promise<number>;
  /**
   * `CLUSTER FAILOVER` on a replica of the master on `masterPort`; resolves with that replica once
   * it is master in every live node's view, the cluster is ok and the old master replicates it.
   */
  failover(masterPort: number): Promise<RedisAddress>;
  /** SIGKILL, as in a crash; resolves once the process is gone. */
  killNode(port: number): Promise<void>;
  /** Stops every node and removes their directories. */
  stop(): Promise<void>;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/** A free port whose bus port is free as well and which no other node of this cluster has. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + BUS_OFFSET > 65_535 || taken.has(port) || taken.has(port + BUS_OFFSET)) continue;
    if (!(await portIsFree(port + BUS_OFFSET))) continue;
    taken.add(port).add(port + BUS_OFFSET);
    return port;
  }
}

interface ClusterNodeLine {
  port: number;
  flags: string[];
  masterId: string;
  id: string;
}

/** `CLUSTER NODES` of the node on `port`, one entry per node it knows. */
async function clusterNodes(port: number): Promise<ClusterNodeLine[]> {
  const text = String(await ask(port, 'CLUSTER', 'NODES'));
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', address = '', flags = '', masterId = ''] = line.split(' ');
      // `ip:port@busport[,hostname]`
      const nodePort = Number(address.split('@')[0]?.split(':').pop());
      return { id, port: nodePort, flags: flags.split(','), masterId };
    });
}

/** `ROLE` of the node on `port`: its role and, for a replica, its master's port. */
async function role(port: number): Promise<{ role: string; masterPort?: number }> {
  const reply = (await ask(port, 'ROLE')) as unknown[];
  const name = String(reply[0]);
  return name === 'slave' ? { role: name, masterPort: Number(reply[2]) } : { role: name };
}

async function clusterOk(port: number): Promise<boolean> {
  return /cluster_state:ok/.test(String(await ask(port, 'CLUSTER', 'INFO')));
}

export async function startRedisCluster({
  masters = 3,
  replicasPerMaster = 1,
}: { masters?: number; replicasPerMaster?: number } = {}): Promise<RedisCluster> {
  const total = masters * (1 + replicasPerMaster);
  const started: DeploymentNode[] = [];
  const byPort = new Map<number, DeploymentNode>();
  const stop = () => stopAll(started);
  const live = () => started.filter((node) => node.alive());

  const replicasOf = async (masterPort: number) => {
    const roles = await Promise.all(
      live().map(async (node) => ({ port: node.port, ...(await role(node.port)) })),
    );
    return roles
      .filter((node) => node.role === 'slave' && node.masterPort === masterPort)
      .map((node) => ({ host: HOST, port: node.port }));
  };

  const linkUp = async (port: number) =>
    (await info(port, 'replication')).get('master_link_status') === 'up';

  /**
   * Throws (with what is still missing) unless every live node reports cluster_state:ok, every live
   * node sees every other one as that one sees itself (role and master; no fail or handshake flag),
   * and every replica's link to its master is up. A manual failover right after `--cluster create`
   * times out when the master does not know the replica as its own yet: this wait rules that out.
   */
  const settled = async () => {
    const ports = live().map((node) => node.port);
    const views = await Promise.all(ports.map((port) => clusterNodes(port)));
    const selves = views.map((view, index) => {
      const self = view.find((line) => line.flags.includes('myself'));
      if (!self) throw new Error(`${ports[index]} lists no myself line`);
      return self;
    });
    for (const [index, view] of views.entries()) {
      for (const self of selves) {
        const seen = view.find((line) => line.id === self.id);
        const selfRole = self.flags.includes('master') ? 'master' : 'slave';
        if (
          !seen ||
          !seen.flags.includes(selfRole) ||
          seen.masterId !== self.masterId ||
          seen.flags.some((flag) => /fail|handshake|noaddr/.test(flag))
        )
          throw new Error(`${ports[index]} does not see ${self.port} as it is yet`);
      }
    }
    for (const port of ports) {
      if (!(await clusterOk(port))) throw new Error(`${port} is not cluster_state:ok`);
    }
    const replicas = ports.filter((_, index) => selves[index]?.flags.includes('slave'));
    for (const port of replicas) {
      if (!(await linkUp(port))) throw new Error(`replica ${port} has no master link`);
    }
    return { replicas: replicas.length };
  };

  try {
    const taken = new Set<number>();
    for (let index = 0; index < total; index += 1) {
      const port = await clusterPort(taken);
      const node = await startNode('cluster', port, (dir) => [
        ...dataNodeArgs(port, dir),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(NODE_TIMEOUT_MS),
      ]);
      started.push(node);
      byPort.set(port, node);
    }

    try {
      await run(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...started.map((node) => `${HOST}:${node.port}`),
          '--cluster-replicas',
          String(replicasPerMaster),
          '--cluster-yes',
        ],
        { timeout: SETTLE_MS },
      );
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(`redis-cli --cluster create failed: ${stdout}${stderr}`, { cause: error });
    }

    await until(
      'every node agrees on the topology, is cluster_state:ok, and every replica is linked',
      async () => (await settled()).replicas === masters * replicasPerMaster,
      SETTLE_MS,
    );
  } catch (error) {
    await stop().catch(() => {}); // The start's failure is the one worth reporting.
    throw error;
  }

  return {
    nodes: started.map((node) => ({ host: HOST, port: node.port })),
    async masters() {
      const roles = await Promise.all(
        live().map(async (node) => ({ port: node.port, ...(await role(node.port)) })),
      );
      return roles
        .filter((node) => node.role === 'master')
        .map((node) => ({ host: HOST, port: node.port }));
    },
    replicasOf,
    async masterOfKey(key) {
      const [asked] = live();
      if (!asked) throw new Error('no node of this cluster is alive');
      const slot = Number(await ask(asked.port, 'CLUSTER', 'KEYSLOT', key));
      const ranges = (await ask(asked.port, 'CLUSTER', 'SLOTS')) as [
        number,
        number,
        [string, number],
      ][];
      const holder = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
      if (holder === undefined) throw new Error(`no master holds slot ${slot} of ${key}`);
      return Number(holder);
    },
    async failover(masterPort) {
      const candidates = await replicasOf(masterPort);
      const [replica] = candidates;
      if (!replica) throw new Error(`the master ${masterPort} has no live replica`);
      await until('the cluster settles before the failover', settled, SETTLE_MS);
      await ask(replica.port, 'CLUSTER', 'FAILOVER');
      await until(
        `${replica.port} takes over from ${masterPort} and the cluster settles`,
        async () => {
          if ((await role(replica.port)).role !== 'master') throw new Error('still a replica');
          await settled();
          // A manual failover leaves the old master running: it follows the new one.
          if (!byPort.get(masterPort)?.alive()) return true;
          const old = await role(masterPort);
          return old.masterPort === replica.port;
        },
        SETTLE_MS,
      );
      return replica;
    },
    async killNode(port) {
      const node = byPort.get(port);
      if (!node) throw new Error(`no node of this cluster listens on ${port}`);
      await node.kill();
    },
    stop,
  };
}
