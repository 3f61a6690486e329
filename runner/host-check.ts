/**
 * Which Host headers the health server answers, against DNS rebinding: a page on
 * http://attacker.example:3001 whose name the attacker re-points at 127.0.0.1 (or at this
 * machine's address) is same-origin to the browser, so without this check the page could read
 * /health and /metrics. The browser then sends the attacker's name as Host, which is refused.
 *
 * Accepted: an IP address (any port), `localhost`, the bind address when it is a name, and the
 * names in WORKER_HEALTH_ALLOWED_HOSTS (`*` turns the check off). An address is always fine:
 * rebinding needs a name the attacker controls, and a page served from an address as its origin
 * would have to come from this server itself. That keeps orchestrator probes working without
 * configuration (the kubelet sends Host: <pod IP>:<port>; Prometheus scrapes by address); a
 * scraper that uses a DNS name (a Kubernetes Service name, say) must be listed.
 */
import { isIP } from 'node:net';

export interface HostPolicy {
  /** Lower-case names without port; `*` accepts any Host. */
  readonly allowedNames: readonly string[];
}

/** WORKER_HEALTH_HOST and WORKER_HEALTH_ALLOWED_HOSTS as a policy. */
export function hostPolicy(bindHost: string, allowedHosts: readonly string[]): HostPolicy {
  const names = new Set(['localhost', ...allowedHosts].map((name) => name.toLowerCase()));
  // An address is accepted anyway; 0.0.0.0 and :: name no host a client would ask for.
  if (isIP(bindHost) === 0) names.add(bindHost.toLowerCase());
  return { allowedNames: [...names] };
}

/** Only the characters of a name, an IPv4 address or a bracketed IPv6 one, then an optional port. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i;

/**
 * Whether to answer a request with this Host header. No header at all is answered: browsers
 * always send one, so its absence means a probe speaking HTTP/1.0.
 */
export function hostAllowed(header: string | undefined, policy: HostPolicy): boolean {
  if (header === undefined) return true;
  if (policy.allowedNames.includes('*')) return true;
  const match = HOST_HEADER.exec(header.trim());
  if (!match) return false;
  const host = match[1]!.toLowerCase();
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0) return true;
  return policy.allowedNames.includes(host);
}
