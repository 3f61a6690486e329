-- Drops the lock a worker holds on a job. Token "0" means the caller never took a lock.
-- Returns 0 on success, -6 when another token owns the lock, -2 when the lock is gone.
-- batch (optional, a call finishing many jobs, see includes/finishJobsTogether.lua): the lock's
-- owner as read for the whole call (`lockOwner`), and the lock keys and stalled ids to drop,
-- collected so that the call drops them all with one DEL and one SREM.
local function releaseJobLock(jobKey, stalledKey, token, jobId, batch)
  if token == "0" then
    return 0
  end
  local lockKey = jobKey .. ":lock"
  local owner
  if batch then
    owner = batch.lockOwner
  else
    owner = redis.call("GET", lockKey)
  end
  if owner == token then
    if batch then
      batch.locks[#batch.locks + 1] = lockKey
      batch.unstalled[#batch.unstalled + 1] = jobId
    else
      redis.call("DEL", lockKey)
      redis.call("SREM", stalledKey, jobId)
    end
    return 0
  end
  if owner then
    return -6
  end
  return -2
end
