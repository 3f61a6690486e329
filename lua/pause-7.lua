--[[
  Pauses or resumes a queue. Paused (bullmq 6) means meta.paused exists: jobs stay in wait, and
  the wake-up marker is dropped so blocked workers find nothing. Resuming also migrates a legacy
  `paused` list (bullmq 5 moved wait there) back into wait, at most ARGV[3] ids per call; those
  jobs were waiting longer, so they go to the tail (front of the line) in their own order.

  KEYS[1] meta  KEYS[2] marker  KEYS[3] events  KEYS[4] wait  KEYS[5] paused (legacy list)
  KEYS[6] prioritized  KEYS[7] delayed

  ARGV[1] "pause" | "resume"  ARGV[2] "1" to emit the paused/resumed event
  ARGV[3] max legacy ids migrated per call

  Returns the number of legacy `paused` ids still to migrate (the caller repeats with ARGV[2] "0"
  until 0); always 0 for pause.
]]
--- @include "markers"

if ARGV[1] == "pause" then
  redis.call("HSET", KEYS[1], "paused", 1)
  redis.call("DEL", KEYS[2])
  if ARGV[2] == "1" then
    redis.call("XADD", KEYS[3], "*", "event", "paused")
  end
  return 0
end

redis.call("HDEL", KEYS[1], "paused")
local remaining = 0
local legacy = redis.call("LLEN", KEYS[5])
if legacy > 0 then
  if redis.call("EXISTS", KEYS[4]) == 0 then
    redis.call("RENAME", KEYS[5], KEYS[4])
  else
    local chunk = tonumber(ARGV[3])
    local ids = redis.call("LRANGE", KEYS[5], 0, chunk - 1)
    redis.call("RPUSH", KEYS[4], unpack(ids))
    redis.call("LTRIM", KEYS[5], #ids, -1)
    remaining = legacy - #ids
  end
end

local Q = string.sub(KEYS[4], 1, #KEYS[4] - #"wait")
if redis.call("LLEN", KEYS[4]) + redis.call("ZCARD", KEYS[6]) + redis.call("LLEN", Q .. "groups") > 0 then
  signalJobsReady(KEYS[2], false)
else
  signalNextDelayed(KEYS[2], KEYS[7])
end
if ARGV[2] == "1" then
  redis.call("XADD", KEYS[3], "*", "event", "resumed")
end
return remaining
