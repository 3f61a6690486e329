--[[
  Removes waiting jobs (wait, legacy paused list, prioritized, and delayed when asked), at most
  ARGV[3] per call, deleting their keys. The pending iteration of every job scheduler is kept, so
  schedulers go on. No events are emitted on this queue (as bullmq's drain).
  A drained flow child leaves its parent's dependencies; a parent left without pending children
  is removed too when it is in this queue, or released to the front of its own queue's wait list
  otherwise (see removeJobDetached).
  Grouped jobs are drained too: every group's line (groups leave the ring as their lines empty)
  and, when asked, Q group-delayed. Group settings (meta), active sets and the groups:known
  registry stay, as the queue's own meta does.

  KEYS[1] wait  KEYS[2] paused (legacy list)  KEYS[3] prioritized  KEYS[4] delayed
  KEYS[5] repeat  KEYS[6] pc

  ARGV[1] Q  ARGV[2] "1" to drain delayed jobs too  ARGV[3] max jobs removed by this call

  Returns {removed, more}: more is 1 while removable jobs remain (the caller repeats).
]]
--- @include "removeJobDetached"
--- @include "schedulerIteration"
--- @include "batchedCall"
--- @include "groups"

local Q = ARGV[1]
local budget = tonumber(ARGV[3])
-- Each scheduler has at most one pending iteration, so reading that many extra entries per
-- structure is enough to always find `budget` removable ones when they exist.
local schedulers = redis.call("ZCARD", KEYS[5])
local removed = 0
local more = 0

local function removable(jobId)
  return not isCurrentSchedulerIteration(KEYS[5], jobId)
end

local function drainList(key)
  local ids = redis.call("LRANGE", key, 0, budget - removed + schedulers - 1)
  if #ids == 0 then
    return
  end
  local kept = {}
  for _, jobId in ipairs(ids) do
    if string.sub(jobId, 1, 2) == "0:" then
      -- a legacy marker: dropped, not a job
    elseif removed < budget and removable(jobId) then
      removeJobDetached(Q, jobId, true)
      removed = removed + 1
    else
      kept[#kept + 1] = jobId
    end
  end
  redis.call("LTRIM", key, #ids, -1)
  -- Put the kept ids back at the head in their original order.
  for i = #kept, 1, -5000 do
    local slice = {}
    for j = i, math.max(1, i - 4999), -1 do
      slice[#slice + 1] = kept[j]
    end
    redis.call("LPUSH", key, unpack(slice))
  end
  if redis.call("LLEN", key) > #kept or (#kept > 0 and removed >= budget) then
    more = 1
  end
end

local function drainSortedSet(key)
  local ids = redis.call("ZRANGE", key, 0, budget - removed + schedulers - 1)
  local gone = {}
  local keptCount = 0
  for _, jobId in ipairs(ids) do
    if removed < budget and removable(jobId) then
      removeJobDetached(Q, jobId, true)
      removed = removed + 1
      gone[#gone + 1] = jobId
    else
      keptCount = keptCount + 1
    end
  end
  batchedCall("ZREM", key, gone)
  if redis.call("ZCARD", key) > keptCount or (keptCount > 0 and removed >= budget) then
    more = 1
  end
end

local structures = {{KEYS[1], true}, {KEYS[2], true}, {KEYS[3], false}}
if ARGV[2] == "1" then
  structures[#structures + 1] = {KEYS[4], false}
end
for _, structure in ipairs(structures) do
  if removed >= budget then
    if redis.call(structure[2] and "LLEN" or "ZCARD", structure[1]) > 0 then
      more = 1
    end
  elseif structure[2] then
    drainList(structure[1])
  else
    drainSortedSet(structure[1])
  end
end

-- The groups' lines, in ring order. Each group in the ring has at least one waiting job, and at
-- most `schedulers` of them hold only kept iterations, so this many ring entries are enough.
local ringKey = Q .. "groups"
if removed >= budget then
  if redis.call("LLEN", ringKey) > 0 then
    more = 1
  end
else
  local gids = redis.call("LRANGE", ringKey, 0, budget - removed + schedulers - 1)
  local keptGroups = 0
  for _, gid in ipairs(gids) do
    if removed >= budget then
      more = 1
      break
    end
    local line = groupKey(Q, gid, "wait")
    drainList(line)
    if redis.call("LLEN", line) == 0 then
      redis.call("LREM", ringKey, 0, gid)
    else
      keptGroups = keptGroups + 1
    end
  end
  if redis.call("LLEN", ringKey) > keptGroups then
    more = 1
  end
end
if ARGV[2] == "1" then
  local groupDelayed = Q .. "group-delayed"
  if removed >= budget then
    if redis.call("ZCARD", groupDelayed) > 0 then
      more = 1
    end
  else
    drainSortedSet(groupDelayed)
  end
end

if redis.call("ZCARD", KEYS[3]) == 0 then
  redis.call("DEL", KEYS[6])
end
return {removed, more}
