--[[
  One beat of an OxMQ worker's heartbeat: refreshes its record, indexes it, prunes index members
  whose record expired, and hands the worker what was asked of it since the last beat.

  KEYS[1] worker (Q oxmq:worker:<workerId>, a hash)  KEYS[2] workers (Q oxmq:workers, a zset)
  KEYS[3] worker cancel (Q oxmq:worker:<workerId>:cancel, a hash jobId -> reason)
  ARGV[1] workerId  ARGV[2] now (ms)  ARGV[3] ttl (ms)  ARGV[4] JSON object of the record's fields
  ARGV[5] Q (the queue's base key)  ARGV[6] how long (ms) the entry of a worker that stopped
  beating stays in the index after its last beat, so a console can tell it went missing

  Returns { command or false, { jobId, reason, ... } }: the pending command (`quiet` / `resume`)
  and the cancel requests, which are deleted as they are handed over.
]]
local fields = cjson.decode(ARGV[4])
local flat = {}
for field, value in pairs(fields) do
  table.insert(flat, field)
  table.insert(flat, tostring(value))
end
redis.call("HSET", KEYS[1], unpack(flat))
redis.call("PEXPIRE", KEYS[1], ARGV[3])
redis.call("ZADD", KEYS[2], ARGV[2], ARGV[1])

-- Each worker's record has its own TTL, so the index is pruned by record, oldest first, bounded;
-- only entries whose last beat is older than ARGV[6]: until then a dead worker's entry is how
-- the console knows it went missing (engine/admin/redis/problem-signals.ts).
local oldest = redis.call("ZRANGEBYSCORE", KEYS[2], "-inf", tonumber(ARGV[2]) - tonumber(ARGV[6]),
  "LIMIT", 0, 20)
for _, id in ipairs(oldest) do
  if redis.call("EXISTS", ARGV[5] .. "oxmq:worker:" .. id) == 0 then
    redis.call("ZREM", KEYS[2], id)
  end
end

local command = redis.call("HGET", KEYS[1], "command")
local cancels = redis.call("HGETALL", KEYS[3])
if #cancels > 0 then redis.call("DEL", KEYS[3]) end
return { command, cancels }
