--- @include "deleteJobKeys"
-- Deletes a job's keys, and first its deduplication key (plus the "dedup next" proto-job) when
-- that key still points at this job, so the next add with the same deduplication id is not
-- swallowed by a job that no longer exists.
local function removeJobWithDedup(Q, jobId)
  local jobKey = Q .. jobId
  local dedupId = redis.call("HGET", jobKey, "deid")
  if dedupId then
    local dedupKey = Q .. "de:" .. dedupId
    if redis.call("GET", dedupKey) == jobId then
      redis.call("DEL", dedupKey, Q .. "dn:" .. dedupId)
    end
  end
  deleteJobKeys(jobKey)
end
