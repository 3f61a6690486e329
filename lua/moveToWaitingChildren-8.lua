--[[
  job.moveToWaitingChildren: a running job parks itself in waiting-children until its pending
  children finish (docs/redis-keys.md). Nothing changes unless the job still has a pending child
  (or, when ARGV[2] names one, unless that child is pending): a child that finished before this
  call has already left the dependencies, so the job simply keeps running.
  The checks (lock, active) come before any write, so a refused call leaves the job as it was.

  KEYS[1] active  KEYS[2] waiting-children  KEYS[3] job hash  KEYS[4] job:dependencies
  KEYS[5] job:unsuccessful  KEYS[6] stalled  KEYS[7] events  KEYS[8] meta

  ARGV[1] lock token ("0": the caller holds no lock)  ARGV[2] full key of one child, or ""
  ARGV[3] now (ms; the waiting-children score)  ARGV[4] jobId

  Returns 0 moved, 1 nothing pending (still active), -1 job missing, -2 lock missing,
  -6 lock held by another token, -3 job not active, -9 a child failed with failParentOnFailure.
]]
--- @include "getMaxEvents"
--- @include "releaseJobLock"
--- @include "groups"

local jobKey = KEYS[3]
local jobId = ARGV[4]
local token = ARGV[1]

if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
if redis.call("ZCARD", KEYS[5]) ~= 0 then
  return -9
end

local pending
if ARGV[2] ~= "" then
  pending = redis.call("SISMEMBER", KEYS[4], ARGV[2]) == 1
else
  pending = redis.call("SCARD", KEYS[4]) > 0
end
if not pending then
  return 1
end

if token ~= "0" then
  local owner = redis.call("GET", jobKey .. ":lock")
  if not owner then
    return -2
  end
  if owner ~= token then
    return -6
  end
end
if redis.call("LREM", KEYS[1], -1, jobId) == 0 then
  return -3
end
releaseJobLock(jobKey, KEYS[6], token, jobId)
-- A grouped job waiting for children holds no group slot.
leaveGroupActiveOf(baseOfKey(KEYS[1], "active"), jobId)

redis.call("ZADD", KEYS[2], tonumber(ARGV[3]), jobId)
redis.call("XADD", KEYS[7], "MAXLEN", "~", getMaxEvents(KEYS[8]), "*", "event", "waiting-children",
  "jobId", jobId, "prev", "active")
return 0
