--[[
  Sends a failed attempt straight back to be run again (retry without backoff delay).

  KEYS[1] active  KEYS[2] wait  KEYS[3] job hash  KEYS[4] meta  KEYS[5] events
  KEYS[6] delayed KEYS[7] prioritized KEYS[8] pc  KEYS[9] marker KEYS[10] stalled

  ARGV[1] Q  ARGV[2] now  ARGV[3] "LPUSH" | "RPUSH" (lifo)  ARGV[4] jobId  ARGV[5] token
  ARGV[6] JSON array of fields to write [k1, v1, ...]

  Returns 0, or -1 job missing, -2 lock missing, -3 not active, -6 lock owned by another token.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "releaseJobLock"
--- @include "promoteDueDelayedJobs"

local jobKey = KEYS[3]
local jobId = ARGV[4]
local Q = ARGV[1]

promoteDueDelayedJobs(KEYS[6], KEYS[2], KEYS[7], KEYS[8], KEYS[5], KEYS[9], Q, tonumber(ARGV[2]),
  isPausedOrMaxed(KEYS[4], KEYS[1]))

if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
local lockResult = releaseJobLock(jobKey, KEYS[10], ARGV[5], jobId)
if lockResult < 0 then
  return lockResult
end
local fields = cjson.decode(ARGV[6])
if #fields > 0 then
  redis.call("HSET", jobKey, unpack(fields))
end
if redis.call("LREM", KEYS[1], -1, jobId) == 0 then
  return -3
end

local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
enqueueReadyJob(KEYS[2], KEYS[7], KEYS[8], KEYS[9], jobId, priority, ARGV[3], isPausedOrMaxed(KEYS[4], KEYS[1]))
redis.call("HINCRBY", jobKey, "atm", 1)
redis.call("XADD", KEYS[5], "MAXLEN", "~", getMaxEvents(KEYS[4]), "*", "event", "waiting", "jobId", jobId, "prev", "active")
return 0
