/**
 * Cross-site request forgery guard for mutations. Browsers attach `Sec-Fetch-Site` and/or
 * `Origin` to every POST and a page on another site cannot forge either, so a mutation is
 * accepted only when one of them proves the request came from this origin. Requests carrying
 * neither (curl, scripts) must send an Origin header explicitly: failing closed is the point.
 */
import type { NextRequest } from 'next/server';

export function isSameOrigin(request: NextRequest, trustedOrigin: string): boolean {
  const fetchSite = request.headers.get('sec-fetch-site');
  // Sent by every current browser; "same-site" is refused too (a sibling subdomain is not us).
  if (fetchSite === 'same-origin') return true;
  if (fetchSite !== null) return false;
  const origin = request.headers.get('origin');
  if (origin === null) return false;
  if (origin === trustedOrigin) return true;
  // Behind no proxy the Host header is what the browser connected to; compare hosts so
  // http://127.0.0.1:3000 and a NEXTAUTH_URL of http://localhost:3000 both work locally.
  const host = request.headers.get('host');
  try {
    return host !== null && new URL(origin).host === host;
  } catch {
    return false;
  }
}
