--- @include "leaveActive"
--- @include "onChildFinished"
--- @include "collectMetrics"
--- @include "groups"
--- @include "removeJobDetached"
--- @include "intText"
-- The per-job part of finishing an active job (completed or failed for good), shared by
-- moveToFinished (one job) and moveToFinishedBatch (many): lock and state checks, the outcome
-- fields, leaving active (and its group), the deduplication window, the parent, attemptsMade,
-- the finished set (or deletion), the events and metrics. Trimming the finished set, the
-- events stream and the drained / marker checks are once per call, so the callers do them.
-- f: {jobId, token, now, target ("completed" | "failed"), field ("returnvalue" |
--     "failedReason"), value, fieldsJson, keepCount, attempts, metricsKey?, metricsMax?}
-- k: {active, stalled, events, finished}
-- batch (optional): a call finishing many jobs collects some writes to make them once for all
-- (see includes/finishJobsTogether.lua); nil writes everything here.
-- Returns 0 or a negative error code (see moveToFinished-13.lua).
local function finishActiveJob(k, Q, f, batch)
  local jobKey = Q .. f.jobId
  -- A missing job passes these two checks (empty keys) and is refused by leaveActive with -1.
  -- Empty sets do not exist in Redis: one EXISTS over both keys clears the usual case (a job
  -- that is no flow parent) in one command instead of two.
  if f.target == "completed" and not (batch and batch.noPendingChildren)
      and redis.call("EXISTS", jobKey .. ":dependencies", jobKey .. ":unsuccessful") ~= 0 then
    if redis.call("SCARD", jobKey .. ":dependencies") ~= 0 then
      return -4
    end
    if redis.call("ZCARD", jobKey .. ":unsuccessful") ~= 0 then
      return -9
    end
  end

  -- One read for everything below: whether the job exists (every job hash has a timestamp;
  -- a hash without one is checked the long way), its attempts made and its links. It comes
  -- before leaveActive writes f.fieldsJson, which must therefore never carry these fields
  -- (callers send failedReason and stacktrace only).
  local job = redis.call("HMGET", jobKey, "timestamp", "atm", "gid", "deid", "parentKey", "parent")
  local left = leaveActive(jobKey, k.active, k.stalled, f.jobId, f.token, f.fieldsJson, job[1] ~= false, batch)
  if left < 0 then
    return left
  end
  -- A grouped job frees its group slot (waking idle workers when the group was full).
  if job[3] then
    leaveGroupActive(Q, job[3], f.jobId)
  end

  -- A simple (no TTL) deduplication window closes when its owner finishes.
  local dedupId = job[4]
  if dedupId then
    local dedupKey = Q .. "de:" .. dedupId
    if redis.call("PTTL", dedupKey) == -1 and redis.call("GET", dedupKey) == f.jobId then
      redis.call("DEL", dedupKey)
    end
  end

  -- Before the job may be deleted below: its parent needs its key, result and flags.
  local links = {job[5], job[6]}
  onChildFinished(jobKey, f.target, f.value, f.now, links)

  -- attemptsMade goes up by one: written with the outcome below (what HINCRBY would leave),
  -- or not at all when the job is deleted.
  local attemptsMade = (tonumber(job[2]) or 0) + 1
  if f.keepCount == 0 then
    deleteFinishedJobDetached(Q, f.jobId, links)
  else
    if batch then
      batch.finished[#batch.finished + 1] = batch.nowText
      batch.finished[#batch.finished + 1] = f.jobId
      redis.call("HSET", jobKey, f.field, f.value, "finishedOn", batch.nowText, "atm", intText(attemptsMade))
    else
      redis.call("ZADD", k.finished, f.now, f.jobId)
      redis.call("HSET", jobKey, f.field, f.value, "finishedOn", f.now, "atm", attemptsMade)
    end
    if f.target == "failed" then
      redis.call("HDEL", jobKey, "defa")
    end
  end

  redis.call("XADD", k.events, "*", "event", f.target, "jobId", f.jobId, f.field, f.value, "prev", "active")
  if f.target == "failed" and attemptsMade >= f.attempts then
    redis.call("XADD", k.events, "*", "event", "retries-exhausted", "jobId", f.jobId, "attemptsMade", attemptsMade)
  end
  if batch then
    batch.metricsCount = batch.metricsCount + 1
  elseif f.metricsKey then
    collectMetrics(f.metricsKey, f.metricsKey .. ":data", f.metricsMax, f.now)
  end
  return 0
end
