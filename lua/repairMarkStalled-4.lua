--[[
  Integrity repair of active-unlocked (docs/integrity.md, "Repairs"): marks an active job that
  holds no lock as stalled, so the next stalled check (lua/moveStalledJobsToWait-8.lua, phase 1)
  recovers it with its usual accounting. Nothing is written unless the job still exists, is
  still active, holds no lock and is not marked yet. Q active is searched within
  LIST_END_WINDOW entries of each end (includes/listSearch.lua): a job not found there in a
  longer list cannot be confirmed active without a scan that would hold Redis, and is left alone.

  KEYS[1] job hash  KEYS[2] active  KEYS[3] lock (the job's)  KEYS[4] stalled

  ARGV[1] job id

  Returns {1, "marked stalled"} or {0, why nothing was written}: "deep:active" when the job may
  be deep inside a long Q active.
]]
--- @include "listSearch"

local id = ARGV[1]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return {0, "the job hash is gone"}
end
local where = findNearListEnds(KEYS[2], id)
if where == "absent" then
  return {0, "the job is no longer active"}
end
if where == "middle" then
  return {0, "deep:active"}
end
if redis.call("EXISTS", KEYS[3]) == 1 then
  return {0, "the job holds a lock"}
end
if redis.call("SISMEMBER", KEYS[4], id) == 1 then
  return {0, "the job is already marked stalled"}
end
redis.call("SADD", KEYS[4], id)
return {1, "marked stalled"}
