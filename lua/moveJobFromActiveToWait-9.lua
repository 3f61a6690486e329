--[[
  Returns a job whose processor hit a rate limit to the front of the line, without counting an
  attempt, and reports how long the limit still holds. A grouped job goes to the front of its
  group's line and frees its group slot.

  KEYS[1] active  KEYS[2] wait  KEYS[3] stalled  KEYS[4] meta  KEYS[5] limiter
  KEYS[6] prioritized  KEYS[7] marker  KEYS[8] events  KEYS[9] job hash

  ARGV[1] jobId  ARGV[2] token

  Returns the limiter's PTTL (0 when none), or -1 job missing, -2 / -6 lock errors.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "releaseJobLock"
--- @include "markers"
--- @include "groups"

local jobKey = KEYS[9]
local jobId = ARGV[1]
if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
local lockResult = releaseJobLock(jobKey, KEYS[3], ARGV[2], jobId)
if lockResult < 0 then
  return lockResult
end
if redis.call("LREM", KEYS[1], 1, jobId) > 0 then
  local Q = baseOfKey(KEYS[2], "wait")
  local gid = leaveGroupActiveOf(Q, jobId)
  local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
  if gid then
    pushGroupedJob(Q, gid, jobId, "RPUSH")
  elseif priority > 0 then
    -- Counter 0: ahead of every other job of the same priority.
    redis.call("ZADD", KEYS[6], priority * 4294967296, jobId)
  else
    redis.call("RPUSH", KEYS[2], jobId)
  end
  signalJobsReady(KEYS[7], isPausedOrMaxed(KEYS[4], KEYS[1]))
  redis.call("XADD", KEYS[8], "MAXLEN", "~", getMaxEvents(KEYS[4]), "*", "event", "waiting", "jobId", jobId, "prev", "active")
end
local ttl = redis.call("PTTL", KEYS[5])
if ttl > 0 then
  return ttl
end
return 0
