/**
 * A local Redis Sentinel deployment for tests: one master, one replica and three sentinels
 * (quorum 2), each a process of its own on 127.0.0.1 in a temporary directory (a sentinel rewrites
 * its config file, so each has its own). See docs/testing-deployments.md.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
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

const DOWN_AFTER_MS = 1_000;
const FAILOVER_TIMEOUT_MS = 5_000;
const SETTLE_MS = 20_000;
const QUORUM = 2;
const SENTINELS = 3;

/**
 * Sentinel's own periods (SENTINEL DEBUG, Redis 7): it reads INFO from the instances every 10 s
 * and sends hellos every 2 s, and waits 4 hello periods before turning a former master into a
 * replica. Shorter ones let the deployment settle, and a failover finish, in seconds.
 */
const SENTINEL_PERIODS = ['info-period', 200, 'publish-period', 500];

export interface RedisSentinelDeployment {
  readonly masterName: string;
  readonly sentinels: RedisAddress[];
  /** The master's address as the first live sentinel reports it. */
  master(): Promise<RedisAddress>;
  /**
   * `SENTINEL FAILOVER`; resolves with the new master once every live sentinel reports it, it
   * answers ROLE master and, if the old master still runs, Sentinel has made that one its replica
   * (which also closes the old master's client connections, so clients ask the sentinels again).
   */
  failover(): Promise<RedisAddress>;
  /** SIGKILLs the current master; resolves with its address once the process is gone. */
  killMaster(): Promise<RedisAddress>;
  /** Stops every process and removes their directories. */
  stop(): Promise<void>;
}

type Fields = Map<string, string>;

/** A SENTINEL reply listing instances (flat `[name, value, …]` arrays) as maps. */
function instances(reply: unknown): Fields[] {
  return (reply as string[][]).map((flat) => {
    const fields: Fields = new Map();
    for (let index = 0; index + 1 < flat.length; index += 2)
      fields.set(flat[index] ?? '', flat[index + 1] ?? '');
    return fields;
  });
}

const healthy = (fields: Fields) =>
  !/s_down|o_down|disconnected/.test(fields.get('flags') ?? 'disconnected');

async function role(port: number): Promise<{ role: string; masterPort?: number }> {
  const reply = (await ask(port, 'ROLE')) as unknown[];
  const name = String(reply[0]);
  return name === 'slave' ? { role: name, masterPort: Number(reply[2]) } : { role: name };
}

export async function startRedisSentinel({
  masterName = 'oxmq-master',
}: { masterName?: string } = {}): Promise<RedisSentinelDeployment> {
  const servers = new Map<number, DeploymentNode>();
  const sentinelNodes: DeploymentNode[] = [];
  const stop = () => stopAll([...sentinelNodes, ...servers.values()]);

  const startServer = async (replicaOf?: number) => {
    const port = await freePort();
    const node = await startNode('sentinel-data', port, (dir) => [
      ...dataNodeArgs(port, dir),
      ...(replicaOf === undefined ? [] : ['--replicaof', HOST, String(replicaOf)]),
    ]);
    servers.set(port, node);
    return port;
  };

  const liveSentinels = () => sentinelNodes.filter((node) => node.alive());

  const addressFrom = async (port: number): Promise<number> => {
    const reply = (await ask(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as
      string[] | null;
    if (!reply) throw new Error(`sentinel ${port} does not know ${masterName}`);
    return Number(reply[1]);
  };

  const firstSentinel = () => {
    const [first] = liveSentinels();
    if (!first) throw new Error('no sentinel is running');
    return first.port;
  };

  const master = async (): Promise<RedisAddress> => ({
    host: HOST,
    port: await addressFrom(firstSentinel()),
  });

  const linkUp = async (port: number) =>
    (await info(port, 'replication')).get('master_link_status') === 'up';

  try {
    const masterPort = await startServer();
    const replicaPort = await startServer(masterPort);
    for (let index = 0; index < SENTINELS; index += 1) {
      const port = await freePort();
      const node = await startNode('sentinel', port, (dir) => {
        const config = path.join(dir, 'sentinel.conf');
        writeFileSync(
          config,
          [
            `port ${port}`,
            `bind ${HOST}`,
            `dir ${dir}`,
            `sentinel monitor ${masterName} ${HOST} ${masterPort} ${QUORUM}`,
            `sentinel down-after-milliseconds ${masterName} ${DOWN_AFTER_MS}`,
            `sentinel failover-timeout ${masterName} ${FAILOVER_TIMEOUT_MS}`,
            '',
          ].join('\n'),
        );
        return [config, '--sentinel'];
      });
      sentinelNodes.push(node);
      await ask(port, 'SENTINEL', 'DEBUG', ...SENTINEL_PERIODS);
    }

    await until(
      'the replica syncs and every sentinel knows the master, the replica and the other sentinels',
      async () => {
        if (!(await linkUp(replicaPort))) return false;
        const views = await Promise.all(
          sentinelNodes.map(async (node) => ({
            master: await addressFrom(node.port),
            replicas: instances(await ask(node.port, 'SENTINEL', 'REPLICAS', masterName)),
            sentinels: instances(await ask(node.port, 'SENTINEL', 'SENTINELS', masterName)),
          })),
        );
        return views.every(
          (view) =>
            view.master === masterPort &&
            view.replicas.some(
              (replica) =>
                Number(replica.get('port')) === replicaPort &&
                healthy(replica) &&
                replica.get('master-link-status') === 'ok',
            ) &&
            view.sentinels.filter(healthy).length === SENTINELS - 1,
        );
      },
      SETTLE_MS,
    );
  } catch (error) {
    await stop().catch(() => {}); // The start's failure is the one worth reporting.
    throw error;
  }

  return {
    masterName,
    sentinels: sentinelNodes.map((node) => ({ host: HOST, port: node.port })),
    master,
    async failover() {
      const before = (await master()).port;
      await ask(firstSentinel(), 'SENTINEL', 'FAILOVER', masterName);
      const after = await until(
        `every sentinel reports a master other than ${before}`,
        async () => {
          const ports = await Promise.all(liveSentinels().map((node) => addressFrom(node.port)));
          const [port] = ports;
          return ports.every((other) => other !== before && other === port) ? port : undefined;
        },
        SETTLE_MS,
      );
      await until(
        `${after} is master and ${before}, if alive, replicates it`,
        async () => {
          if ((await role(after)).role !== 'master') return false;
          if (!servers.get(before)?.alive()) return true;
          const old = await role(before);
          return old.masterPort === after && (await linkUp(before));
        },
        SETTLE_MS,
      );
      return { host: HOST, port: after };
    },
    async killMaster() {
      const current = await master();
      const node = servers.get(current.port);
      if (!node) throw new Error(`the master ${current.port} is not one of this deployment's`);
      await node.kill();
      return current;
    },
    stop,
  };
}
