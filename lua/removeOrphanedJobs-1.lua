--[[
  Removes, among the given job ids, those whose keys exist but that no state structure holds:
  not in completed, failed, delayed, prioritized, waiting-children or group-delayed, not in wait,
  active or the legacy paused list, and (for a grouped job) not in its group's line or active set.
  Such keys are left over by a crash of an old bullmq version; nothing reaches them any more.
  A candidate whose key exists but is not a job hash is never touched.
  The check and the deletion run in one script, so a job moving meanwhile is never mistaken.

  KEYS[1] base (Q, the queue key prefix with trailing colon; every key is built from it)

  ARGV[1] most jobs to remove in this call (0: no limit)
  ARGV[2..] candidate job ids (one scan batch of the caller)

  Returns the number of jobs removed (their hash and sub-keys deleted).
]]
--- @include "deleteJobKeys"

local Q = KEYS[1]
local limit = tonumber(ARGV[1])
local zsets = {"completed", "failed", "delayed", "prioritized", "waiting-children", "group-delayed"}

-- First the cheap checks (sorted sets, group active sets); what is left needs the lists.
local unresolved = {}
local order = {}
local lists = {Q .. "wait", Q .. "active", Q .. "paused"}
local groupLines = {}
local count = 0
for i = 2, #ARGV do
  local jobId = ARGV[i]
  -- Only a job hash (bullmq and OxMQ always write `timestamp`), or no hash at all (sub-keys
  -- left behind), is a job: a key of some other queue under a longer prefix never qualifies.
  local keyType = redis.call("TYPE", Q .. jobId)["ok"]
  local isJob = keyType == "none" or (keyType == "hash" and redis.call("HEXISTS", Q .. jobId, "timestamp") == 1)
  if unresolved[jobId] == nil and not isJob then
    unresolved[jobId] = false
  end
  if unresolved[jobId] == nil then
    local held = false
    for _, state in ipairs(zsets) do
      if redis.call("ZSCORE", Q .. state, jobId) then
        held = true
        break
      end
    end
    local gid = redis.call("HGET", Q .. jobId, "gid")
    if not held and gid then
      held = redis.call("SISMEMBER", Q .. "group:" .. gid .. ":active", jobId) == 1
      if not held and not groupLines[gid] then
        groupLines[gid] = true
        lists[#lists + 1] = Q .. "group:" .. gid .. ":wait"
      end
    end
    if held then
      unresolved[jobId] = false
    else
      unresolved[jobId] = true
      order[#order + 1] = jobId
      count = count + 1
    end
  end
end

-- One pass over each list, in pages, until every remaining candidate is found or the lists end.
local PAGE = 1000
for _, list in ipairs(lists) do
  if count == 0 then
    break
  end
  local length = redis.call("LLEN", list)
  local from = 0
  while from < length and count > 0 do
    for _, jobId in ipairs(redis.call("LRANGE", list, from, from + PAGE - 1)) do
      if unresolved[jobId] then
        unresolved[jobId] = false
        count = count - 1
      end
    end
    from = from + PAGE
  end
end

local removed = 0
for _, jobId in ipairs(order) do
  if limit > 0 and removed >= limit then
    break
  end
  if unresolved[jobId] then
    deleteJobKeys(Q .. jobId)
    removed = removed + 1
  end
end
return removed
