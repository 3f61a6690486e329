--[[
  Job.retry for a completed or failed job: back to wait (or prioritized; a grouped job to its
  group's line), with its result and finish time cleared. A child of a live parent becomes one of its pending dependencies again
  (includes/returnChildToParent.lua); a parent that was already released is not moved back.

  KEYS[1] job hash  KEYS[2] events  KEYS[3] state (completed | failed)  KEYS[4] wait
  KEYS[5] meta  KEYS[6] active  KEYS[7] marker  KEYS[8] prioritized  KEYS[9] pc

  ARGV[1] jobId  ARGV[2] "LPUSH" (back of the line) | "RPUSH" (front, lifo)
  ARGV[3] "returnvalue" | "failedReason" (the result field to clear)  ARGV[4] state
  ARGV[5] "1" to reset attemptsMade  ARGV[6] "1" to reset attemptsStarted

  Returns 1, -1 job missing, -3 job not in that state.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "enqueueReadyJob"
--- @include "returnChildToParent"

local jobKey = KEYS[1]
local jobId = ARGV[1]
if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
if redis.call("ZREM", KEYS[3], jobId) == 0 then
  return -3
end

redis.call("HDEL", jobKey, "finishedOn", "processedOn", ARGV[3])
if ARGV[5] == "1" then
  redis.call("HDEL", jobKey, "atm", "attemptsMade")
end
if ARGV[6] == "1" then
  redis.call("HDEL", jobKey, "ats")
end

local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
enqueueReadyJob(KEYS[4], KEYS[8], KEYS[9], KEYS[7], jobId, priority, ARGV[2], isPausedOrMaxed(KEYS[5], KEYS[6]))
returnChildToParent(jobKey, ARGV[4])
redis.call("XADD", KEYS[2], "MAXLEN", "~", getMaxEvents(KEYS[5]), "*", "event", "waiting", "jobId", jobId,
  "prev", ARGV[4])
return 1
