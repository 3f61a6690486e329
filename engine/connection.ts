/**
 * The Redis connection option (ConnectionOptions, RedisClient: public types) and the connection
 * helpers, which live with the Redis storage (engine/backend/redis/connection.ts). Re-exported
 * here for the admin, whose inspection is Redis by nature; Queue, Worker and the other classes
 * only name the types here: their connections are their storage's (engine/backend/storage.ts).
 */
export * from './backend/redis/connection';
