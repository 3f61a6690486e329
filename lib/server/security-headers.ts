/**
 * The Content-Security-Policy of the console's pages (docs/security.md, "Headers"). Scripts run
 * only when they carry the page's nonce: Next adds it to its own scripts when it finds the
 * policy on the request (proxy.ts puts it there), the layout adds it to the theme script, and
 * 'strict-dynamic' lets those load the chunks they import. Styles may be inline: the charts and
 * the flow graph position elements with style attributes, and styles cannot run code. Nothing
 * may frame the console, and forms post only to it.
 */
const PAGE_POLICY = (nonce: string, development: boolean) =>
  [
    `default-src 'self'`,
    // `next dev` evaluates modules for hot reloading; a production build never needs eval.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? ` 'unsafe-eval'` : ''}`,
    `style-src 'self' 'unsafe-inline'`,
    `img-src 'self' data: blob:`,
    `font-src 'self' data:`,
    `connect-src 'self'`,
    `object-src 'none'`,
    `base-uri 'self'`,
    `form-action 'self'`,
    `frame-ancestors 'none'`,
  ].join('; ');

/** A fresh nonce for one page response: 128 random bits. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

export function pageContentSecurityPolicy(nonce: string, development: boolean): string {
  return PAGE_POLICY(nonce, development);
}

/** HSTS when the console is served over https: browsers then refuse plain http to it. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';
