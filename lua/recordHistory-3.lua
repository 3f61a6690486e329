--[[
  Adds to a queue's history (docs/redis-keys.md, "History"): counts the workers gathered since
  their last flush, or a backlog sample, into the minute hash and the hour hash that hold them,
  and sets when each hash expires.

  KEYS[1] minute hash (Q oxmq:history:m:<hour start>)
  KEYS[2] hour hash (Q oxmq:history:h:<day start>)
  KEYS[3] index (Q oxmq:history: zset of the history hashes, scored by when each expires; read
          by obliterate, which deletes them with the queue)
  ARGV[1] when the minute hash expires (ms epoch)   ARGV[2] when the hour hash expires
  ARGV[3] JSON [field, increment, ...] for the minute hash
  ARGV[4] JSON [field, increment, ...] for the hour hash
  ARGV[5] JSON [field, value, ...] set in the minute hash (backlog samples)
  ARGV[6] JSON [field, value, ...] set in the hour hash

  Returns the number of fields written.
]]
local written = 0
local function increments(key, json)
  local pairs = cjson.decode(json)
  for i = 1, #pairs, 2 do
    redis.call("HINCRBY", key, pairs[i], pairs[i + 1])
    written = written + 1
  end
end
local function sets(key, json)
  local pairs = cjson.decode(json)
  for i = 1, #pairs, 2 do
    redis.call("HSET", key, pairs[i], pairs[i + 1])
    written = written + 1
  end
end
increments(KEYS[1], ARGV[3])
increments(KEYS[2], ARGV[4])
sets(KEYS[1], ARGV[5])
sets(KEYS[2], ARGV[6])
if written > 0 then
  redis.call("PEXPIREAT", KEYS[1], ARGV[1])
  redis.call("PEXPIREAT", KEYS[2], ARGV[2])
  -- Hashes that expired leave the index, which lives as long as its longest-lived hash.
  local now = redis.call("TIME")
  redis.call("ZREMRANGEBYSCORE", KEYS[3], "-inf", "(" .. (now[1] * 1000))
  redis.call("ZADD", KEYS[3], ARGV[1], KEYS[1], ARGV[2], KEYS[2])
  local last = redis.call("ZRANGE", KEYS[3], -1, -1, "WITHSCORES")
  redis.call("PEXPIREAT", KEYS[3], last[2])
end
return written
