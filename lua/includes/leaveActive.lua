--- @include "releaseJobLock"
-- The common first step of every move out of `active` by the worker that ran the job: the job
-- must exist and be locked by `token`; then the outcome's fields are written and the id leaves
-- the active list. Returns 0, or -1 (job missing), -2 / -6 (lock), -3 (not active).
-- knownToExist: true when the caller already read the job hash and found it.
-- batch: optional, see releaseJobLock.
local function leaveActive(jobKey, activeKey, stalledKey, jobId, token, fieldsJson, knownToExist, batch)
  if not knownToExist and redis.call("EXISTS", jobKey) == 0 then
    return -1
  end
  local lockResult = releaseJobLock(jobKey, stalledKey, token, jobId, batch)
  if lockResult < 0 then
    return lockResult
  end
  -- "[]" (nothing to write) is what every completion sends: not worth a JSON decode per job.
  if fieldsJson ~= "[]" then
    local fields = cjson.decode(fieldsJson)
    if #fields > 0 then
      redis.call("HSET", jobKey, unpack(fields))
    end
  end
  if redis.call("LREM", activeKey, "-1", jobId) == 0 then
    return -3
  end
  return 0
end
