-- Drops the lock a worker holds on a job. Token "0" means the caller never took a lock.
-- Returns 0 on success, -6 when another token owns the lock, -2 when the lock is gone.
local function releaseJobLock(jobKey, stalledKey, token, jobId)
  if token == "0" then
    return 0
  end
  local lockKey = jobKey .. ":lock"
  local owner = redis.call("GET", lockKey)
  if owner == token then
    redis.call("DEL", lockKey)
    redis.call("SREM", stalledKey, jobId)
    return 0
  end
  if owner then
    return -6
  end
  return -2
end
