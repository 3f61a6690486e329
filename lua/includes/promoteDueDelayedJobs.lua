--- @include "enqueueReadyJob"
--- @include "groups"
-- Moves delayed jobs whose due time has come (at most PROMOTE_PER_CALL per call) to wait or
-- prioritized, and due grouped delayed jobs (Q group-delayed, at most as many more) to their
-- groups' lines. bullmq promotes up to 1000 per call; a fetch that promotes that many runs for
-- several milliseconds, so a large due batch goes over in smaller steps, one per fetch (see
-- docs/reliability.md, Large backlogs). Promoted jobs join the wait list behind every job
-- already waiting, so the step size does not change which job runs next.
-- A string: redis.call formats number arguments on every call.
local PROMOTE_PER_CALL = "250"

local function promoteDueDelayedJobs(delayedKey, waitKey, prioritizedKey, pcKey, eventsKey, markerKey, Q, now, pausedOrMaxed)
  local due = redis.call("ZRANGEBYSCORE", delayedKey, "0", dueScoreBound(now), "LIMIT", "0", PROMOTE_PER_CALL)
  for _, jobId in ipairs(due) do
    redis.call("ZREM", delayedKey, jobId)
    local jobKey = Q .. jobId
    local fields = redis.call("HMGET", jobKey, "priority", "gid")
    local priority = tonumber(fields[1]) or 0
    if fields[2] then
      -- A grouped job a bullmq script delayed: it goes back to its group.
      pushGroupedJob(Q, fields[2], jobId, "LPUSH")
    elseif priority > 0 then
      redis.call("ZADD", prioritizedKey, priorityScore(pcKey, priority), jobId)
    else
      redis.call("LPUSH", waitKey, jobId)
    end
    redis.call("XADD", eventsKey, "*", "event", "waiting", "jobId", jobId, "prev", "delayed")
    redis.call("HSET", jobKey, "delay", 0)
  end
  if #due + promoteDueGroupedJobs(Q, now, PROMOTE_PER_CALL) > 0 then
    signalJobsReady(markerKey, pausedOrMaxed)
  end
end
