--- @include "markers"
--- @include "scores"
--- @include "groups"
-- Puts a job that is ready to run where workers look for it: a grouped job (hash field `gid`)
-- into its group's line, else the wait list for priority 0 (pushCmd LPUSH = back of the line,
-- RPUSH = front), else the prioritized set. waitKey is Q .. "wait".
-- knownGid: the job's group when the caller just wrote the hash (false: none); nil reads it.
local function enqueueReadyJob(waitKey, prioritizedKey, pcKey, markerKey, jobId, priority, pushCmd, pausedOrMaxed, knownGid)
  local Q = baseOfKey(waitKey, "wait")
  local gid = knownGid
  if gid == nil then
    gid = redis.call("HGET", Q .. jobId, "gid")
  end
  if gid then
    pushGroupedJob(Q, gid, jobId, pushCmd)
    if not isGroupPaused(Q, gid) then
      signalJobsReady(markerKey, pausedOrMaxed)
    end
    return
  end
  if priority > 0 then
    redis.call("ZADD", prioritizedKey, priorityScore(pcKey, priority), jobId)
  else
    redis.call(pushCmd, waitKey, jobId)
  end
  signalJobsReady(markerKey, pausedOrMaxed)
end
