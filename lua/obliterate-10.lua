--[[
  Deletes a paused queue with all its jobs and schedulers, at most ARGV[2] jobs (or schedulers)
  per call; the caller repeats while the reply is 1. Once every structure is empty the queue's own
  keys go too. Each removed job drops the deduplication key it owns (bullmq 6.7.0 does the same);
  deduplication keys that no job owns (`de:*`, `dn:*`) are left alone, as bullmq leaves them:
  finding them would need a SCAN, and they expire or are recovered as stale by the next add.
  Removed flow children leave their parents' dependencies ("hard" mode: a parent left without
  pending children is removed with them in this queue, or released to its own wait list in
  another queue; see removeJobDetached).
  Children in other queues of a removed parent keep a `parentKey` to a job that no longer exists
  (as in bullmq).
  Tenant groups go too: Q group-delayed with its jobs, then group by group (from Q groups:known)
  its line with its jobs and every key of the group, each group counting one against the budget;
  at the end Q groups, Q groups:turn and Q groups:known. OxMQ's history of the queue (the hashes
  listed in Q oxmq:history) goes at the end too.

  KEYS[1] meta  KEYS[2] active  KEYS[3] delayed  KEYS[4] repeat  KEYS[5] completed
  KEYS[6] wait  KEYS[7] paused (legacy list)  KEYS[8] prioritized  KEYS[9] failed
  KEYS[10] waiting-children

  ARGV[1] Q  ARGV[2] max jobs removed by this call  ARGV[3] "1" to remove active jobs too

  Returns 0 when the queue is gone, 1 when more remains, -1 queue not paused,
  -2 active jobs and no force.
]]
--- @include "removeJobDetached"
--- @include "batchedCall"
--- @include "groups"

local Q = ARGV[1]
local budget = tonumber(ARGV[2])

if redis.call("HEXISTS", KEYS[1], "paused") == 0 then
  return -1
end
if ARGV[3] ~= "1" and redis.call("LLEN", KEYS[2]) > 0 then
  return -2
end

local function removeFromList(key)
  if budget <= 0 then
    return
  end
  local ids = redis.call("LRANGE", key, 0, budget - 1)
  for _, jobId in ipairs(ids) do
    if string.sub(jobId, 1, 2) ~= "0:" then
      removeJobDetached(Q, jobId, true)
    end
  end
  redis.call("LTRIM", key, #ids, -1)
  budget = budget - #ids
end

local function removeFromSortedSet(key)
  if budget <= 0 then
    return
  end
  local ids = redis.call("ZRANGE", key, 0, budget - 1)
  for _, jobId in ipairs(ids) do
    removeJobDetached(Q, jobId, true)
  end
  batchedCall("ZREM", key, ids)
  budget = budget - #ids
end

local function removeSchedulers(key)
  if budget <= 0 then
    return
  end
  local ids = redis.call("ZRANGE", key, 0, budget - 1)
  for _, schedulerId in ipairs(ids) do
    redis.call("DEL", Q .. "repeat:" .. schedulerId)
  end
  batchedCall("ZREM", key, ids)
  budget = budget - #ids
end

removeFromList(KEYS[2])
removeFromSortedSet(KEYS[3])
removeSchedulers(KEYS[4])
removeFromSortedSet(KEYS[5])
removeFromList(KEYS[6])
removeFromList(KEYS[7])
removeFromSortedSet(KEYS[8])
removeFromSortedSet(KEYS[9])
removeFromSortedSet(KEYS[10])
removeFromSortedSet(Q .. "group-delayed")

-- Group by group: its line's jobs, then (once the line is empty) the group's own keys.
local knownKey = Q .. "groups:known"
while budget > 0 do
  local gid = redis.call("ZRANGE", knownKey, 0, 0)[1]
  if not gid then
    break
  end
  removeFromList(groupKey(Q, gid, "wait"))
  if budget > 0 then
    deleteGroupKeys(Q, gid)
    redis.call("ZREM", knownKey, gid)
    budget = budget - 1
  end
end

-- Every structure stops only when it is empty or the budget is spent.
if budget <= 0 then
  return 1
end

local historyIndex = Q .. "oxmq:history"
batchedCall("DEL", historyIndex, redis.call("ZRANGE", historyIndex, 0, -1))
redis.call("DEL", historyIndex)

redis.call("DEL", Q .. "events", Q .. "stalled-check", Q .. "stalled", Q .. "id", Q .. "pc",
  Q .. "marker", Q .. "limiter", Q .. "limiter:log", Q .. "delay", Q .. "priority",
  Q .. "metrics:completed", Q .. "metrics:completed:data",
  Q .. "metrics:failed", Q .. "metrics:failed:data", Q .. "groups", Q .. "groups:turn",
  Q .. "groups:known", KEYS[1])
return 0
