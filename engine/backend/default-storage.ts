/**
 * The storage a class uses without a `storage` option: Redis, as bullmq stores it. The one
 * place the engine's classes reach the Redis storage by name (scripts/check-engine-imports.mjs).
 */
export { redisStorage as defaultStorage } from './redis/redis-storage';
