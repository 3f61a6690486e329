/**
 * The runner's health endpoints on plain node:http: GET /livez (the process answers), GET
 * /readyz (it is doing its job: workers running, Redis reachable, not shutting down), GET
 * /health (the detail a person or a dashboard reads) and GET /metrics (Prometheus text, see
 * docs/metrics.md). A request naming a host it does not know is refused before any of them
 * (runner/host-check.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostAllowed, hostPolicy, type HostPolicy } from './host-check';

export type Readiness =
  | { ready: true; status: 'ready' }
  | { ready: false; status: 'starting' | 'shutting down' | 'redis unreachable' };

export interface HealthSource {
  readiness(): Promise<Readiness>;
  /** The /health body (readiness is added to it). */
  detail(): object;
  /** Answers GET /metrics; without it /metrics is not found. */
  metrics?: (request: http.IncomingMessage, response: http.ServerResponse) => void;
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

function send(response: http.ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(text);
}

async function route(
  source: HealthSource,
  policy: HostPolicy,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<void> {
  if (!hostAllowed(request.headers.host, policy)) {
    // 421: this server does not serve that name. The body does not echo the Host back.
    return send(response, 421, {
      error:
        'host not allowed: use an IP address or localhost, or list the name in WORKER_HEALTH_ALLOWED_HOSTS',
    });
  }
  const pathname = new URL(request.url ?? '/', 'http://health').pathname;
  const known =
    pathname === '/livez' ||
    pathname === '/readyz' ||
    pathname === '/health' ||
    (pathname === '/metrics' && source.metrics !== undefined);
  if (!known) return send(response, 404, { error: 'not found' });
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return send(response, 405, { error: 'method not allowed' });
  }
  if (pathname === '/metrics') return source.metrics!(request, response);
  if (pathname === '/livez') return send(response, 200, { status: 'live' });
  const readiness = await source.readiness();
  if (pathname === '/readyz')
    return send(response, readiness.ready ? 200 : 503, { status: readiness.status });
  return send(response, 200, {
    status: readiness.status,
    ready: readiness.ready,
    ...source.detail(),
  });
}

export interface HealthListen {
  readonly host: string;
  /** 0 = any free port. */
  readonly port: number;
  /** Host names answered besides addresses and localhost (WORKER_HEALTH_ALLOWED_HOSTS). */
  readonly allowedHosts?: readonly string[];
}

/** Listens on host:port and resolves once listening. */
export function startHealthServer(
  { host, port, allowedHosts = [] }: HealthListen,
  source: HealthSource,
): Promise<HealthServer> {
  const policy = hostPolicy(host, allowedHosts);
  const server = http.createServer((request, response) => {
    route(source, policy, request, response).catch((error: unknown) =>
      send(response, 500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });
  // Probes open a connection per request; never let one keep the process from exiting.
  server.keepAliveTimeout = 1000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve({
        port: address.port,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
