--- @include "leaveActive"
--- @include "onChildFinished"
--- @include "collectMetrics"
--- @include "groups"
--- @include "removeJobDetached"
-- The per-job part of finishing an active job (completed or failed for good), shared by
-- moveToFinished (one job) and moveToFinishedBatch (many): lock and state checks, the outcome
-- fields, leaving active (and its group), the deduplication window, the parent, attemptsMade,
-- the finished set (or deletion), the events and metrics. Trimming the finished set, the
-- events stream and the drained / marker checks are once per call, so the callers do them.
-- f: {jobId, token, now, target ("completed" | "failed"), field ("returnvalue" |
--     "failedReason"), value, fieldsJson, keepCount, attempts, metricsKey?, metricsMax?}
-- k: {active, stalled, events, finished}
-- Returns 0 or a negative error code (see moveToFinished-13.lua).
local function finishActiveJob(k, Q, f)
  local jobKey = Q .. f.jobId
  -- A missing job passes these two checks (empty keys) and is refused by leaveActive with -1.
  if f.target == "completed" then
    if redis.call("SCARD", jobKey .. ":dependencies") ~= 0 then
      return -4
    end
    if redis.call("ZCARD", jobKey .. ":unsuccessful") ~= 0 then
      return -9
    end
  end

  local left = leaveActive(jobKey, k.active, k.stalled, f.jobId, f.token, f.fieldsJson)
  if left < 0 then
    return left
  end
  -- One read for everything below that depends on the job's links.
  local links = redis.call("HMGET", jobKey, "gid", "deid", "parentKey", "parent")
  -- A grouped job frees its group slot (waking idle workers when the group was full).
  if links[1] then
    leaveGroupActive(Q, links[1], f.jobId)
  end

  -- A simple (no TTL) deduplication window closes when its owner finishes.
  local dedupId = links[2]
  if dedupId then
    local dedupKey = Q .. "de:" .. dedupId
    if redis.call("PTTL", dedupKey) == -1 and redis.call("GET", dedupKey) == f.jobId then
      redis.call("DEL", dedupKey)
    end
  end

  -- Before the job may be deleted below: its parent needs its key, result and flags.
  onChildFinished(jobKey, f.target, f.value, f.now, {links[3], links[4]})

  local attemptsMade = redis.call("HINCRBY", jobKey, "atm", 1)
  if f.keepCount == 0 then
    deleteFinishedJobDetached(Q, f.jobId)
  else
    redis.call("ZADD", k.finished, f.now, f.jobId)
    redis.call("HSET", jobKey, f.field, f.value, "finishedOn", f.now)
    if f.target == "failed" then
      redis.call("HDEL", jobKey, "defa")
    end
  end

  redis.call("XADD", k.events, "*", "event", f.target, "jobId", f.jobId, f.field, f.value, "prev", "active")
  if f.target == "failed" and attemptsMade >= f.attempts then
    redis.call("XADD", k.events, "*", "event", "retries-exhausted", "jobId", f.jobId, "attemptsMade", attemptsMade)
  end
  if f.metricsKey then
    collectMetrics(f.metricsKey, f.metricsKey .. ":data", f.metricsMax, f.now)
  end
  return 0
end
