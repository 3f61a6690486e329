--- @include "markers"
--- @include "scores"
-- Puts a job that is ready to run where workers look for it: the wait list for priority 0
-- (pushCmd LPUSH = back of the line, RPUSH = front), else the prioritized set.
local function enqueueReadyJob(waitKey, prioritizedKey, pcKey, markerKey, jobId, priority, pushCmd, pausedOrMaxed)
  if priority > 0 then
    redis.call("ZADD", prioritizedKey, priorityScore(pcKey, priority), jobId)
  else
    redis.call(pushCmd, waitKey, jobId)
  end
  signalJobsReady(markerKey, pausedOrMaxed)
end
