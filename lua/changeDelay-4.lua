--[[
  Job.changeDelay: a delayed job becomes due ARGV[1] ms after now (a grouped one stays in
  Q group-delayed).

  KEYS[1] delayed  KEYS[2] meta  KEYS[3] marker  KEYS[4] events

  ARGV[1] delay (ms)  ARGV[2] now (ms)  ARGV[3] jobId  ARGV[4] job hash key

  Returns 0, -1 job missing, -3 job not delayed.
]]
--- @include "getMaxEvents"
--- @include "markers"
--- @include "scores"
--- @include "groups"

local delay = tonumber(ARGV[1])
local jobId = ARGV[3]
local jobKey = ARGV[4]
if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
local delayedKey = KEYS[1]
if redis.call("ZREM", delayedKey, jobId) == 0 then
  delayedKey = baseOfKey(KEYS[1], "delayed") .. "group-delayed"
  if redis.call("ZREM", delayedKey, jobId) == 0 then
    return -3
  end
end

local dueTs = tonumber(ARGV[2]) + delay
redis.call("ZADD", delayedKey, delayedScore(delayedKey, dueTs), jobId)
redis.call("HSET", jobKey, "delay", delay)
redis.call("XADD", KEYS[4], "MAXLEN", "~", getMaxEvents(KEYS[2]), "*", "event", "delayed", "jobId", jobId,
  "delay", dueTs)
signalNextDelayed(KEYS[3], KEYS[1])
return 0
