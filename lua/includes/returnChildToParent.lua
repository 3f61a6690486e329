-- A finished child that is retried (job.retry, Queue.retryJobs) becomes pending again in its
-- live parent: it leaves the record its outcome left there (`:processed` for a completed child;
-- `:unsuccessful` or `:failed` for a failed one) and rejoins `:dependencies` (docs/redis-keys.md). A child
-- that left no record (still pending, or dropped by removeDependencyOnFailure) is left alone,
-- and the parent is never moved back into waiting-children: one that was already released runs
-- (or ran) without it, as bullmq's does.
local function returnChildToParent(jobKey, finishedState)
  local parentKey = redis.call("HGET", jobKey, "parentKey")
  if not parentKey or redis.call("EXISTS", parentKey) == 0 then
    return
  end
  local recorded
  if finishedState == "failed" then
    recorded = redis.call("ZREM", parentKey .. ":unsuccessful", jobKey) == 1
      or redis.call("HDEL", parentKey .. ":failed", jobKey) == 1
  else
    recorded = redis.call("HDEL", parentKey .. ":processed", jobKey) == 1
  end
  if recorded then
    redis.call("SADD", parentKey .. ":dependencies", jobKey)
  end
end
