/**
 * A plain TCP relay between a client and the test Redis. It does not interpret or alter the
 * protocol: it counts request/reply turns per connection (to tell one pipelined round trip from
 * many awaited ones) and can black-hole chosen connections (to simulate a socket that stays open
 * but never answers, which a closed socket cannot).
 */
import net from 'node:net';

export interface ProxiedConnection {
  readonly id: number;
  /** Everything the client sent, as latin1 text (enough to spot CLIENT SETNAME and commands). */
  sent: string;
  /** Times the client sent data after the server had answered (the first send counts too). */
  turns: number;
  /** While true nothing is relayed in either direction; the sockets stay open. */
  frozen: boolean;
  closed: boolean;
}

export interface TcpProxy {
  readonly port: number;
  readonly connections: ProxiedConnection[];
  /** Turns summed over all connections. */
  totalTurns(): number;
  /** Black-holes every open connection whose client traffic so far contains `marker`. */
  freezeWhere(marker: string): ProxiedConnection[];
  close(): Promise<void>;
}

export async function startTcpProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
): Promise<TcpProxy> {
  const connections: ProxiedConnection[] = [];
  const sockets = new Set<net.Socket>();
  let nextId = 1;

  const server = net.createServer((downstream) => {
    const upstream = net.connect(targetPort, targetHost);
    sockets.add(downstream);
    sockets.add(upstream);
    const connection: ProxiedConnection = {
      id: nextId++,
      sent: '',
      turns: 0,
      frozen: false,
      closed: false,
    };
    connections.push(connection);
    let lastFromServer = true;

    downstream.on('data', (chunk: Buffer) => {
      if (connection.frozen) return;
      connection.sent += chunk.toString('latin1');
      if (lastFromServer) connection.turns += 1;
      lastFromServer = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (connection.frozen) return;
      lastFromServer = true;
      downstream.write(chunk);
    });
    const closeBoth = () => {
      connection.closed = true;
      downstream.destroy();
      upstream.destroy();
      sockets.delete(downstream);
      sockets.delete(upstream);
    };
    downstream.on('close', closeBoth);
    upstream.on('close', closeBoth);
    downstream.on('error', closeBoth);
    upstream.on('error', closeBoth);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('proxy has no port');

  return {
    port: address.port,
    connections,
    totalTurns: () => connections.reduce((sum, c) => sum + c.turns, 0),
    freezeWhere(marker) {
      const hit = connections.filter((c) => !c.closed && c.sent.includes(marker));
      for (const c of hit) c.frozen = true;
      return hit;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
