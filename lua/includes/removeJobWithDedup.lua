--- @include "deleteJobKeys"
--- @include "groups"
-- Deletes a job's keys, and first its deduplication key (plus the "dedup next" proto-job) when
-- that key still points at this job, so the next add with the same deduplication id is not
-- swallowed by a job that no longer exists. A grouped job also leaves its group's active set
-- (waking idle workers if that frees a slot) and Q group-delayed, both cheap; taking it out of
-- its group's line is the caller's part, as taking it out of Q wait is.
local function removeJobWithDedup(Q, jobId)
  local jobKey = Q .. jobId
  local fields = redis.call("HMGET", jobKey, "deid", "gid")
  local dedupId = fields[1]
  if dedupId then
    local dedupKey = Q .. "de:" .. dedupId
    if redis.call("GET", dedupKey) == jobId then
      redis.call("DEL", dedupKey, Q .. "dn:" .. dedupId)
    end
  end
  if fields[2] then
    leaveGroupActive(Q, fields[2], jobId)
    redis.call("ZREM", Q .. "group-delayed", jobId)
  end
  deleteJobKeys(jobKey)
end
