import type { Cluster, Redis } from 'ioredis';

/**
 * Counts the Lua script calls (EVALSHA / EVAL) sent on a real ioredis client from now on, by
 * wrapping its sendCommand: the commands still go to Redis unchanged. A worker's heartbeats are
 * not counted: they run on a timer, whatever the worker does (their keys name `oxmq:worker:`).
 */
export function countScriptCalls(connection: Redis | Cluster): { readonly count: number } {
  // The tests count on single-server connections, whose sendCommand takes (command, stream).
  const client = connection as Redis;
  const counter = { count: 0 };
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    if ((command.name === 'evalsha' || command.name === 'eval') && !isHeartbeat(command.args)) {
      counter.count += 1;
    }
    return send(command, stream);
  };
  return counter;
}

function isHeartbeat(args: unknown[]): boolean {
  return args.some((arg) => typeof arg === 'string' && arg.includes(':oxmq:worker:'));
}
