-- A queue is "paused or maxed" when meta.paused exists, or when a global concurrency is set and
-- the active list already holds that many jobs. In that state no "jobs available" marker is
-- written and no job is handed out.
local function isPausedOrMaxed(metaKey, activeKey)
  local meta = redis.call("HMGET", metaKey, "paused", "concurrency")
  if meta[1] then
    return true
  end
  local concurrency = tonumber(meta[2])
  if concurrency then
    return redis.call("LLEN", activeKey) >= concurrency
  end
  return false
end

-- The same rule from meta's `paused` and `concurrency` fields the caller already read.
local function isPausedOrMaxedFrom(paused, concurrencyField, activeKey)
  if paused then
    return true
  end
  local concurrency = tonumber(concurrencyField)
  if concurrency then
    return redis.call("LLEN", activeKey) >= concurrency
  end
  return false
end
