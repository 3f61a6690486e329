--[[
  The state of one job, looked up in the order bullmq's getState uses (needs LPOS, Redis 6.0.6+).

  KEYS[1] completed  KEYS[2] failed  KEYS[3] delayed  KEYS[4] prioritized
  KEYS[5] active     KEYS[6] wait    KEYS[7] paused (legacy list)  KEYS[8] waiting-children

  ARGV[1] jobId

  A job deep inside a long wait list (past LIST_END_WINDOW entries from both ends) is not
  looked up entry by entry: a job whose hash exists and that is in no other state is waiting.

  Returns "completed", "failed", "delayed" (Q delayed, or Q group-delayed for a grouped job),
  "prioritized", "active", "waiting" (wait, legacy paused list, or a grouped job's group line),
  "waiting-children" or "unknown".
]]
--- @include "listSearch"

local jobId = ARGV[1]
local Q = string.sub(KEYS[1], 1, #KEYS[1] - #"completed")
if redis.call("ZSCORE", KEYS[1], jobId) then
  return "completed"
end
if redis.call("ZSCORE", KEYS[2], jobId) then
  return "failed"
end
if redis.call("ZSCORE", KEYS[3], jobId) or redis.call("ZSCORE", Q .. "group-delayed", jobId) then
  return "delayed"
end
if redis.call("ZSCORE", KEYS[4], jobId) then
  return "prioritized"
end
if redis.call("LPOS", KEYS[5], jobId) then
  return "active"
end
-- The lists a waiting job can be in may hold a whole backlog: each is searched near its ends
-- only (includes/listSearch.lua), and "maybe" means "not near either end of a long list".
local function inList(key)
  local where = findNearListEnds(key, jobId)
  if where == "head" or where == "tail" then
    return "yes"
  end
  return where == "absent" and "no" or "maybe"
end
local inWait = inList(KEYS[6])
if inWait == "yes" then
  return "waiting"
end
local inPaused = inList(KEYS[7])
if inPaused == "yes" then
  return "waiting"
end
local gid = redis.call("HGET", Q .. jobId, "gid")
local inLine = "no"
if gid then
  inLine = inList(Q .. "group:" .. gid .. ":wait")
  if inLine == "yes" then
    return "waiting"
  end
end
if redis.call("ZSCORE", KEYS[8], jobId) then
  return "waiting-children"
end
-- In no other state, and not near the ends of a long list it could be in: an existing job is
-- deep inside that list (every job is in exactly one state), so it is waiting. Finding the
-- entry itself would cost a scan of up to the whole list.
if (inWait == "maybe" or inPaused == "maybe" or inLine == "maybe")
    and redis.call("EXISTS", Q .. jobId) == 1 then
  return "waiting"
end
return "unknown"
