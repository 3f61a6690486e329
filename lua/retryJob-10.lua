--[[
  Sends a failed attempt straight back to be run again (retry without backoff delay). A grouped
  job goes back to its group's line (back, or front for lifo) and frees its group slot.

  KEYS[1] active  KEYS[2] wait  KEYS[3] job hash  KEYS[4] meta  KEYS[5] events
  KEYS[6] delayed KEYS[7] prioritized KEYS[8] pc  KEYS[9] marker KEYS[10] stalled

  ARGV[1] Q  ARGV[2] now  ARGV[3] "LPUSH" | "RPUSH" (lifo)  ARGV[4] jobId  ARGV[5] token
  ARGV[6] JSON array of fields to write [k1, v1, ...]

  Returns 0, or -1 job missing, -2 lock missing, -3 not active, -6 lock owned by another token.
]]
--- @include "getMaxEvents"
--- @include "isPausedOrMaxed"
--- @include "leaveActive"
--- @include "promoteDueDelayedJobs"
--- @include "groups"

local jobKey = KEYS[3]
local jobId = ARGV[4]
local Q = ARGV[1]

promoteDueDelayedJobs(KEYS[6], KEYS[2], KEYS[7], KEYS[8], KEYS[5], KEYS[9], Q, tonumber(ARGV[2]),
  isPausedOrMaxed(KEYS[4], KEYS[1]))

local left = leaveActive(jobKey, KEYS[1], KEYS[10], jobId, ARGV[5], ARGV[6])
if left < 0 then
  return left
end
leaveGroupActiveOf(Q, jobId)

local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
enqueueReadyJob(KEYS[2], KEYS[7], KEYS[8], KEYS[9], jobId, priority, ARGV[3], isPausedOrMaxed(KEYS[4], KEYS[1]))
redis.call("HINCRBY", jobKey, "atm", 1)
redis.call("XADD", KEYS[5], "MAXLEN", "~", getMaxEvents(KEYS[4]), "*", "event", "waiting", "jobId", jobId, "prev", "active")
return 0
