--[[
  Integrity repair of hash-without-state (docs/integrity.md, "Repairs"): puts a finished job that
  no state structure holds back into Q completed (it has a returnvalue) or Q failed (a
  failedReason), scored by finishedOn as moveToFinished scores it. Nothing is written while the
  job is in a state (its group's line or active set included) or holds a lock; an unfinished job
  is left alone, since placing it would decide when it runs. Lists are searched within
  LIST_END_WINDOW entries of each end (includes/listSearch.lua): when a longer list might hold the
  job deeper inside, nothing is written, since ruling that out would scan the list and hold Redis.

  KEYS[1] base (Q, the queue key prefix with trailing colon; every key is built from it)

  ARGV[1] job id

  Returns {1, "completed" or "failed"} or {0, why nothing was written}: "deep:<lists>" when the
  job may be deep inside those long lists.
]]
--- @include "listSearch"

local Q = KEYS[1]
local id = ARGV[1]
local fields = redis.call("HMGET", Q .. id, "timestamp", "finishedOn", "returnvalue", "failedReason", "gid")
if not fields[1] then
  return {0, "the job hash is gone"}
end
local deep = {}
-- True when the job is within the window of an end of the list; a longer list that may hold it
-- deeper inside is noted in `deep`.
local function inList(key, name)
  local where = findNearListEnds(key, id)
  if where == "middle" then
    deep[#deep + 1] = name
    return false
  end
  return where ~= "absent"
end
for _, state in ipairs({"wait", "paused", "active"}) do
  if inList(Q .. state, state) then
    return {0, "the job is in a state again"}
  end
end
for _, state in ipairs({"prioritized", "delayed", "group-delayed", "waiting-children", "completed", "failed"}) do
  if redis.call("ZSCORE", Q .. state, id) then
    return {0, "the job is in a state again"}
  end
end
local gid = fields[5]
if gid then
  local group = Q .. "group:" .. gid .. ":"
  if inList(group .. "wait", "group:" .. gid .. ":wait") or redis.call("SISMEMBER", group .. "active", id) == 1 then
    return {0, "the job is in a state again"}
  end
end
if #deep > 0 then
  return {0, "deep:" .. table.concat(deep, ",")}
end
if redis.call("EXISTS", Q .. id .. ":lock") == 1 then
  return {0, "the job holds a lock"}
end
local finishedOn = tonumber(fields[2] or "")
if not finishedOn then
  return {0, "report-only: an unfinished job; placing it would run it (operator decision)"}
end
if fields[3] then
  redis.call("ZADD", Q .. "completed", finishedOn, id)
  return {1, "completed"}
end
if fields[4] then
  redis.call("ZADD", Q .. "failed", finishedOn, id)
  return {1, "failed"}
end
return {0, "report-only: finished with neither returnvalue nor failedReason"}
