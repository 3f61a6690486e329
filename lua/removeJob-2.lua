--[[
  Removes one job (Queue.remove / job.remove), optionally with all its descendants.
  Descendants are the children recorded on a job: pending (`:dependencies`), completed
  (`:processed`), failed and ignored (`:failed`) and failed-parent (`:unsuccessful`), all as full
  keys "<prefix>:<queue>:<jobId>", possibly in other queues. The walk is depth first and
  collects at most ARGV[4] descendants; deeper or later ones are left where they are.
  Nothing is removed when the job or any collected descendant is locked by a worker.
  If the job is a pending child, it is detached from its parent, and a parent left without
  pending children is released to the front of its wait list.

  KEYS[1] job hash  KEYS[2] repeat

  ARGV[1] jobId  ARGV[2] "1" to remove descendants  ARGV[3] Q  ARGV[4] max descendants

  Returns 1 removed (also when the job did not exist; a dangling id is then just dropped from its
  state, without an event), 0 locked,
  -8 the job is the pending iteration of a job scheduler.
]]
--- @include "removeJobDetached"
--- @include "schedulerIteration"
--- @include "splitJobKey"
--- @include "getMaxEvents"
--- @include "groups"
--- @include "listSearch"

local jobId = ARGV[1]
local Q = ARGV[3]
local maxDescendants = tonumber(ARGV[4])
local rootKey = KEYS[1]

if isCurrentSchedulerIteration(KEYS[2], jobId) then
  return -8
end

-- Preorder walk; removing in reverse preorder deletes every child before its parent.
local nodes = {{Q, jobId}}
if ARGV[2] == "1" then
  local visited = {[rootKey] = true}
  local i = 1
  while i <= #nodes and #nodes <= maxDescendants do
    local nodeKey = nodes[i][1] .. nodes[i][2]
    local children = redis.call("SMEMBERS", nodeKey .. ":dependencies")
    for _, childKey in ipairs(redis.call("HKEYS", nodeKey .. ":processed")) do
      children[#children + 1] = childKey
    end
    for _, childKey in ipairs(redis.call("HKEYS", nodeKey .. ":failed")) do
      children[#children + 1] = childKey
    end
    for _, childKey in ipairs(redis.call("ZRANGE", nodeKey .. ":unsuccessful", 0, -1)) do
      children[#children + 1] = childKey
    end
    for _, childKey in ipairs(children) do
      local childBase, childId = splitJobKey(childKey)
      if childBase and not visited[childKey] and #nodes <= maxDescendants then
        visited[childKey] = true
        if redis.call("EXISTS", childKey) == 1 then
          nodes[#nodes + 1] = {childBase, childId}
        end
      end
    end
    i = i + 1
  end
end

for _, node in ipairs(nodes) do
  if redis.call("EXISTS", node[1] .. node[2] .. ":lock") == 1 then
    return 0
  end
end

-- The state structure holding the job, by the names the `removed` event uses. A grouped job's
-- "delayed" is Q group-delayed and its "wait" its group's line (its group's active set is left
-- by removeJobWithDedup).
local function takeOutOfState(base, id)
  local gid = redis.call("HGET", base .. id, "gid")
  if gid then
    if redis.call("ZREM", base .. "group-delayed", id) == 1 then
      return "delayed"
    end
    if removeFromGroupLine(base, gid, id) then
      return "wait"
    end
  end
  for _, state in ipairs({"completed", "failed", "delayed", "prioritized"}) do
    if redis.call("ZREM", base .. state, id) == 1 then
      return state
    end
  end
  if removeIdFromList(base .. "wait", id) then
    return "wait"
  end
  if removeIdFromList(base .. "paused", id) then
    return "paused"
  end
  if redis.call("LREM", base .. "active", -1, id) > 0 then
    return "active"
  end
  if redis.call("ZREM", base .. "waiting-children", id) == 1 then
    return "waiting-children"
  end
  return "unknown"
end

-- Detach the root from a parent still waiting for it, releasing that parent when the root was
-- its last pending child (the descendants' parents are removed too, so only the root needs it).
detachFromParent(Q, jobId, false)

-- Children before parents. The `removed` event reports the state each job was in before this
-- call (bullmq's own walk releases a parent to wait as its last child goes, so it reports
-- `prev=wait` for parents and emits `waiting` events for them first; the end state is the same).
for n = #nodes, 1, -1 do
  local base, id = nodes[n][1], nodes[n][2]
  if redis.call("EXISTS", base .. id) == 1 then
    local state = takeOutOfState(base, id)
    removeJobWithDedup(base, id)
    redis.call("XADD", base .. "events", "MAXLEN", "~", getMaxEvents(base .. "meta"), "*",
      "event", "removed", "jobId", id, "prev", state)
  elseif n == 1 then
    -- A dangling id without a hash: dropped silently, as bullmq does.
    takeOutOfState(base, id)
  end
end
return 1
