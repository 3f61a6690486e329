/**
 * The address Redis sees a connection come from, written the way CLIENT LIST writes its `addr`
 * (`ip:port`, `[ipv6]:port`), read from the client's own socket. A worker's heartbeat carries its
 * blocking connection's, so a console can tell which CLIENT LIST entry (named after the worker,
 * like a bullmq worker's) belongs to which heartbeat record, even when several workers share a
 * name. Behind NAT or a proxy Redis sees another address; matching then falls back to names.
 */
import type { Socket } from 'node:net';
import type { RedisClient } from './connection';

export function clientAddress(client: RedisClient): string | undefined {
  const socket = (client as unknown as { stream?: Partial<Socket> }).stream;
  const ip = socket?.localAddress;
  const port = socket?.localPort;
  if (!ip || !port) return undefined;
  // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d on our side, a.b.c.d on Redis's.
  const plain = ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
  return plain.includes(':') ? `[${plain}]:${port}` : `${plain}:${port}`;
}
