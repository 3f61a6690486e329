// @ts-check

/**
 * Headers for every response (docs/security.md, "Headers"). Pages also get a nonce-based
 * Content-Security-Policy from proxy.ts; API answers are JSON or event streams that never need
 * to run or load anything, so their policy forbids everything.
 */
const EVERY_RESPONSE = [
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=()' },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // ioredis is a Node-only client; keep it out of the server bundle and require it at runtime.
  serverExternalPackages: ['ioredis'],
  async headers() {
    return [
      { source: '/:path*', headers: EVERY_RESPONSE },
      {
        source: '/api/:path*',
        headers: [
          { key: 'Content-Security-Policy', value: "default-src 'none'; frame-ancestors 'none'" },
        ],
      },
    ];
  },
};

module.exports = nextConfig;
