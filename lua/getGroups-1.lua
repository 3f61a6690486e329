--[[
  Reads tenant groups for the console, in one atomic snapshot: per group its waiting jobs (its
  line), active jobs (its active set), paused flag, effective concurrency and rate limit (its own
  meta, else the queue-wide defaults in Q meta) and the ms until its rate limit lets a job start
  (0 when it may start one now or has no limit). Nothing is written.

  KEYS[1] Q meta

  ARGV[1] Q  ARGV[2] now (ms)  ARGV[3..] group ids

  Returns a flat array, 8 entries per group in the order asked:
  {gid, waiting, active, paused (0|1), concurrency ("" none), max ("" none), duration ("" none),
  rateLimitTtl, ...}.
]]
--- @include "groups"

local Q = ARGV[1]
local now = tonumber(ARGV[2])
local defaults = groupDefaults(Q)

-- groupRateLimitWait without its writes (no trimming of the log).
local function rateLimitTtl(gid, max, duration)
  local limiterKey = groupKey(Q, gid, "limiter")
  if tonumber(redis.call("GET", limiterKey) or "0") >= max then
    local ttl = redis.call("PTTL", limiterKey)
    if ttl > 0 then
      return ttl
    end
  end
  local logKey = limiterKey .. ":log"
  local from = now - duration
  if redis.call("ZCOUNT", logKey, from, "+inf") >= max then
    local oldest = redis.call("ZRANGEBYSCORE", logKey, from, "+inf", "WITHSCORES", "LIMIT", 0, 1)
    return math.max(1, tonumber(oldest[2]) + duration - now + 1)
  end
  return 0
end

local reply = {}
for i = 3, #ARGV do
  local gid = ARGV[i]
  local paused, concurrency, max, duration = groupSettings(Q, gid, defaults)
  local ttl = 0
  if max and duration then
    ttl = rateLimitTtl(gid, max, duration)
  end
  reply[#reply + 1] = gid
  reply[#reply + 1] = redis.call("LLEN", groupKey(Q, gid, "wait"))
  reply[#reply + 1] = redis.call("SCARD", groupKey(Q, gid, "active"))
  reply[#reply + 1] = paused and 1 or 0
  reply[#reply + 1] = concurrency and tostring(concurrency) or ""
  reply[#reply + 1] = (max and duration) and tostring(max) or ""
  reply[#reply + 1] = (max and duration) and tostring(duration) or ""
  reply[#reply + 1] = ttl
end
return reply
