--- @include "isPausedOrMaxed"
--- @include "markers"
--- @include "scores"
--- @include "groups"
-- Moves a parent whose children are done out of waiting-children of its own queue (parentBase,
-- with the trailing colon): to delayed when it has a delay (due now + delay), else to the front
-- of wait (priority 0) or into prioritized; a grouped parent to Q group-delayed or the front of
-- its group's line. Events go to the parent queue's stream.
local function releaseParent(parentBase, parentId, now)
  local parentKey = parentBase .. parentId
  local fields = redis.call("HMGET", parentKey, "delay", "priority", "gid")
  local delay = tonumber(fields[1]) or 0
  local priority = tonumber(fields[2]) or 0
  local gid = fields[3]
  local eventsKey = parentBase .. "events"
  local markerKey = parentBase .. "marker"
  if delay > 0 then
    local dueTs = now + delay
    local delayedKey = parentBase .. "delayed"
    if gid then
      redis.call("ZADD", parentBase .. "group-delayed", dueTs * 4096, parentId)
    else
      redis.call("ZADD", delayedKey, dueTs * 4096, parentId)
    end
    redis.call("XADD", eventsKey, "*", "event", "delayed", "jobId", parentId, "delay", dueTs)
    signalNextDelayed(markerKey, delayedKey)
    return
  end
  local pausedOrMaxed = isPausedOrMaxed(parentBase .. "meta", parentBase .. "active")
  if gid then
    pushGroupedJob(parentBase, gid, parentId, "RPUSH")
  elseif priority > 0 then
    redis.call("ZADD", parentBase .. "prioritized", priorityScore(parentBase .. "pc", priority), parentId)
  else
    -- RPUSH: the front of the line, ahead of jobs that were already waiting.
    redis.call("RPUSH", parentBase .. "wait", parentId)
  end
  signalJobsReady(markerKey, pausedOrMaxed)
  redis.call("XADD", eventsKey, "*", "event", "waiting", "jobId", parentId, "prev", "waiting-children")
end

-- Releases the parent if it has no pending children and is still waiting for them.
local function releaseParentIfDone(parentKey, parentBase, parentId, now)
  if redis.call("SCARD", parentKey .. ":dependencies") == 0 and redis.call("EXISTS", parentKey) == 1
      and redis.call("ZREM", parentBase .. "waiting-children", parentId) == 1 then
    releaseParent(parentBase, parentId, now)
  end
end
