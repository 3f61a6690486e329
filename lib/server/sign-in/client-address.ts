/**
 * The address a sign-in came from, for per-address throttling. Next passes the TCP peer as
 * X-Forwarded-For only when the request has no such header, so a client talking to the console
 * directly can write whatever it likes there: the header is trusted only when the operator says
 * how many reverse proxies append to it (OXMQ_TRUSTED_PROXY_HOPS). With N proxies the client is
 * the N-th entry from the right; the entries left of it are the client's own claims.
 */
export function clientAddress(
  forwardedFor: string | null,
  trustedProxyHops: number,
): string | null {
  if (trustedProxyHops <= 0 || forwardedFor === null) return null;
  const entries = forwardedFor
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const address = entries[entries.length - trustedProxyHops];
  return address === undefined ? null : address.toLowerCase();
}
