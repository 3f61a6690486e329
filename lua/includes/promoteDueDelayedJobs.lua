--- @include "enqueueReadyJob"
-- Moves delayed jobs whose due time has come (at most 1000 per call) to wait or prioritized.
local function promoteDueDelayedJobs(delayedKey, waitKey, prioritizedKey, pcKey, eventsKey, markerKey, Q, now, pausedOrMaxed)
  local due = redis.call("ZRANGEBYSCORE", delayedKey, 0, (now + 1) * 4096 - 1, "LIMIT", 0, 1000)
  for _, jobId in ipairs(due) do
    redis.call("ZREM", delayedKey, jobId)
    local jobKey = Q .. jobId
    local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
    if priority > 0 then
      redis.call("ZADD", prioritizedKey, priorityScore(pcKey, priority), jobId)
    else
      redis.call("LPUSH", waitKey, jobId)
    end
    redis.call("XADD", eventsKey, "*", "event", "waiting", "jobId", jobId, "prev", "delayed")
    redis.call("HSET", jobKey, "delay", 0)
  end
  if #due > 0 then
    signalJobsReady(markerKey, pausedOrMaxed)
  end
end
