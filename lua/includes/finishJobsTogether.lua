--- @include "batchedCall"
--- @include "collectMetrics"
-- What a call completing many jobs (moveToFinishedBatch) does once for all of them instead of
-- once per job: one MGET reads every lock, one EXISTS tells whether any job has children of its
-- own to check, and the writes that are the same for every job (dropping the locks, leaving the
-- stalled set, entering the finished set, the metrics count) are collected by finishActiveJob
-- and made at the end with one command each. Nothing else in the call reads what is collected,
-- so the outcome is the one of finishing the jobs one by one.

-- Q: queue prefix; entries: {jobId, ...} per job in the order they finish; nowText: now as an
-- integer string. Returns the batch table finishActiveJob takes; set batch.lockOwner to
-- batch.owners[i] before finishing entry i.
local function startFinishingTogether(Q, entries, nowText)
  local lockKeys, childKeys = {}, {}
  for i, entry in ipairs(entries) do
    local jobKey = Q .. entry[1]
    lockKeys[i] = jobKey .. ":lock"
    childKeys[#childKeys + 1] = jobKey .. ":dependencies"
    childKeys[#childKeys + 1] = jobKey .. ":unsuccessful"
  end
  local owners = {}
  local pendingChildren = 0
  -- Slices keep unpack under Lua's stack limit (about 8000 values).
  for from = 1, #lockKeys, 2000 do
    local to = math.min(from + 1999, #lockKeys)
    local slice = redis.call("MGET", unpack(lockKeys, from, to))
    for i = 1, #slice do
      owners[from + i - 1] = slice[i]
    end
    pendingChildren = pendingChildren
      + redis.call("EXISTS", unpack(childKeys, 2 * from - 1, 2 * to))
  end
  -- Completing a job only ever removes children sets, so "none" read here holds for the call.
  return {owners = owners, lockOwner = nil, noPendingChildren = pendingChildren == 0,
    locks = {}, unstalled = {}, finished = {}, nowText = nowText, metricsCount = 0}
end

-- The collected writes. k: {stalled, finished}; metrics: {key, max} or nil.
local function endFinishingTogether(batch, k, metrics, now)
  for from = 1, #batch.locks, 2000 do
    redis.call("DEL", unpack(batch.locks, from, math.min(from + 1999, #batch.locks)))
  end
  batchedCall("SREM", k.stalled, batch.unstalled)
  -- Score-member pairs: an even slice size keeps every pair in one slice.
  for from = 1, #batch.finished, 4000 do
    redis.call("ZADD", k.finished, unpack(batch.finished, from, math.min(from + 3999, #batch.finished)))
  end
  if metrics and batch.metricsCount > 0 then
    collectMetrics(metrics.key, metrics.key .. ":data", metrics.max, now, batch.metricsCount)
  end
end
