// @ts-check

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // ioredis is a Node-only client; keep it out of the server bundle and require it at runtime.
  serverExternalPackages: ['ioredis'],
};

module.exports = nextConfig;
