--- @include "parentOfJob"
--- @include "releaseParent"
-- What a child's final outcome does to its parent (nothing for a job without one).
-- completed: the return value lands in <parent>:processed; the parent runs once nothing is pending.
-- failed (final failure only), by the flag in the child's `parent` JSON:
--   fpof: recorded in <parent>:unsuccessful; the parent gets a deferred failure (`defa`) and is
--         moved to wait so that a worker fails it without running its processor;
--   cpof: the failure lands in <parent>:failed and the parent runs now, pending children or not;
--   idof: the failure lands in <parent>:failed; the parent runs once nothing is pending;
--   rdof: the child is dropped from the dependencies; the parent runs once nothing is pending;
--   none: the child stays pending, so the parent keeps waiting.
-- `known` (optional): the job's {parentKey, parent} fields when the caller already read them.
local function onChildFinished(jobKey, outcome, value, now, known)
  local fields = known or redis.call("HMGET", jobKey, "parentKey", "parent")
  local parentKey = fields[1]
  if not parentKey then
    return
  end
  local parentBase, parentId = parentOfJob(parentKey, fields[2])
  if not parentBase then
    return
  end
  local dependenciesKey = parentKey .. ":dependencies"

  if outcome == "completed" then
    if redis.call("SREM", dependenciesKey, jobKey) == 1 then
      redis.call("HSET", parentKey .. ":processed", jobKey, value)
      releaseParentIfDone(parentKey, parentBase, parentId, now)
    end
    return
  end

  local flags = {}
  if fields[2] then
    local ok, parent = pcall(cjson.decode, fields[2])
    if ok and type(parent) == "table" then
      flags = parent
    end
  end
  if flags.fpof then
    if redis.call("SREM", dependenciesKey, jobKey) == 1 then
      redis.call("ZADD", parentKey .. ":unsuccessful", now, jobKey)
    end
    if redis.call("EXISTS", parentKey) == 0 then
      return
    end
    local reason = "child " .. jobKey .. " failed"
    local released = redis.call("ZREM", parentBase .. "waiting-children", parentId) == 1
    if not released and (redis.call("ZREM", parentBase .. "delayed", parentId) == 1
        or redis.call("ZREM", parentBase .. "group-delayed", parentId) == 1) then
      redis.call("HSET", parentKey, "delay", 0)
      released = true
    end
    if released then
      redis.call("HSET", parentKey, "defa", reason)
      -- Straight to wait (not delayed again): the worker that fetches it fails it at once.
      redis.call("HSET", parentKey, "delay", 0)
      releaseParent(parentBase, parentId, now)
    elseif not redis.call("ZSCORE", parentBase .. "failed", parentId) then
      redis.call("HSET", parentKey, "defa", reason)
    end
  elseif flags.cpof then
    redis.call("SREM", dependenciesKey, jobKey)
    redis.call("HSET", parentKey .. ":failed", jobKey, value)
    if redis.call("EXISTS", parentKey) == 1 and redis.call("ZREM", parentBase .. "waiting-children", parentId) == 1 then
      releaseParent(parentBase, parentId, now)
    end
  elseif flags.idof then
    if redis.call("SREM", dependenciesKey, jobKey) == 1 then
      redis.call("HSET", parentKey .. ":failed", jobKey, value)
      releaseParentIfDone(parentKey, parentBase, parentId, now)
    end
  elseif flags.rdof then
    if redis.call("SREM", dependenciesKey, jobKey) == 1 then
      releaseParentIfDone(parentKey, parentBase, parentId, now)
    end
  end
end
