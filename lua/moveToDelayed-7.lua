--[[
  Moves an active job to the delayed set: a retry with backoff, or a processor postponing its job.
  A grouped job goes to Q group-delayed instead (promoted into its group's line when due) and
  frees its group slot.

  KEYS[1] marker  KEYS[2] active  KEYS[3] delayed  KEYS[4] job hash  KEYS[5] events
  KEYS[6] meta    KEYS[7] stalled

  ARGV[1] jobId  ARGV[2] now  ARGV[3] token  ARGV[4] delay (ms, from now)
  ARGV[5] "1" to leave attemptsMade alone (postponed, not failed)
  ARGV[6] JSON array of fields to write [k1, v1, ...]

  Returns 0, or -1 job missing, -2 lock missing, -3 not active, -6 lock owned by another token.
]]
--- @include "getMaxEvents"
--- @include "leaveActive"
--- @include "markers"
--- @include "scores"
--- @include "groups"

local jobKey = KEYS[4]
local jobId = ARGV[1]
local delay = tonumber(ARGV[4])

local left = leaveActive(jobKey, KEYS[2], KEYS[7], jobId, ARGV[3], ARGV[6])
if left < 0 then
  return left
end

local dueTs = tonumber(ARGV[2]) + delay
if ARGV[5] ~= "1" then
  redis.call("HINCRBY", jobKey, "atm", 1)
end
redis.call("HSET", jobKey, "delay", delay)
local Q = baseOfKey(KEYS[3], "delayed")
if leaveGroupActiveOf(Q, jobId) then
  redis.call("ZADD", Q .. "group-delayed", delayedScore(Q .. "group-delayed", dueTs), jobId)
else
  redis.call("ZADD", KEYS[3], delayedScore(KEYS[3], dueTs), jobId)
end
redis.call("XADD", KEYS[5], "MAXLEN", "~", getMaxEvents(KEYS[6]), "*", "event", "delayed", "jobId", jobId, "delay", dueTs)
signalNextDelayed(KEYS[1], KEYS[3])
return 0
