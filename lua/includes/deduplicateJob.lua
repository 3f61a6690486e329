--- @include "deleteJobKeys"
--- @include "markers"
--- @include "scores"
-- Deduplication (bullmq's `de` option) for an incoming job `newId` of queue keys `k`.
-- The key `Q de:<id>` holds the id of the job that owns the window. Modes:
--   simple (no ttl): the window lasts until the owner finishes or is removed;
--   throttle (ttl): the window expires after ttl ms;
--   extend (with ttl): each duplicate restarts the ttl;
--   replace (debounce, usually with a delay): a duplicate replaces the owner while the owner is
--     still delayed (the newest data wins); once the owner left delayed the duplicate is dropped;
--   reschedule: a duplicate moves a still-delayed owner to its own due time.
-- Returns nil when the new job goes ahead (the key now names it), or the owner's id when the new
-- job is a duplicate and must not be stored.
local function deduplicateJob(k, de, newId, timestamp, delay, maxEvents)
  local dedupKey = k.base .. "de:" .. de.id
  local ttl = tonumber(de.ttl)
  local owner = redis.call("GET", dedupKey)
  -- A window without expiry whose owner vanished (e.g. deleted by hand) is stale.
  if owner and redis.call("PTTL", dedupKey) == -1 and redis.call("EXISTS", k.base .. owner) == 0 then
    redis.call("DEL", dedupKey, k.base .. "dn:" .. de.id)
    owner = nil
  end
  if not owner then
    if ttl and ttl > 0 then
      redis.call("SET", dedupKey, newId, "PX", ttl)
    else
      redis.call("SET", dedupKey, newId)
    end
    return nil
  end

  -- A grouped owner waits in Q group-delayed instead of Q delayed.
  local groupDelayed = k.base .. "group-delayed"
  if de.replace then
    if redis.call("ZREM", k.delayed, owner) == 1 or redis.call("ZREM", groupDelayed, owner) == 1 then
      deleteJobKeys(k.base .. owner)
      redis.call("XADD", k.events, "*", "event", "removed", "jobId", owner, "prev", "delayed")
      -- Roles as bullmq writes them here: jobId is the job that stays (the new one).
      redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "deduplicated", "jobId", newId,
        "deduplicationId", de.id, "deduplicatedJobId", owner)
      redis.call("DEL", k.base .. "dn:" .. de.id)
      if de.extend and ttl and ttl > 0 then
        redis.call("SET", dedupKey, newId, "PX", ttl)
      else
        redis.call("SET", dedupKey, newId, "KEEPTTL")
      end
      return nil
    end
    return owner
  end

  if de.extend and ttl and ttl > 0 then
    redis.call("SET", dedupKey, owner, "PX", ttl)
  end
  redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "deduplicated", "jobId", owner,
    "deduplicationId", de.id, "deduplicatedJobId", newId)
  local ownerDelayed = nil
  if de.reschedule then
    if redis.call("ZSCORE", k.delayed, owner) then
      ownerDelayed = k.delayed
    elseif redis.call("ZSCORE", groupDelayed, owner) then
      ownerDelayed = groupDelayed
    end
  end
  if ownerDelayed then
    local dueTs = timestamp + delay
    redis.call("HSET", k.base .. owner, "delay", delay)
    redis.call("ZADD", ownerDelayed, delayedScore(ownerDelayed, dueTs), owner)
    redis.call("XADD", k.events, "MAXLEN", "~", maxEvents, "*", "event", "delayed", "jobId", owner, "delay", dueTs)
    signalNextDelayed(k.marker, k.delayed)
  end
  return owner
end
