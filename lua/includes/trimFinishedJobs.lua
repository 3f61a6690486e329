--- @include "removeJobDetached"
--- @include "batchedCall"
-- Applies removeOnComplete / removeOnFail to the finished set after a job landed in it:
-- jobs older than `age` seconds (at most `limit` of them) and jobs beyond the newest `count`.
-- Each trimmed job is detached from its parent first (a parent left without pending children is
-- released to its wait list); deduplication keys are not touched.
local function trimFinishedJobs(finishedKey, Q, now, keep)
  if keep.age then
    local cutoff = now - keep.age * 1000
    local old = redis.call("ZRANGEBYSCORE", finishedKey, 0, cutoff, "LIMIT", 0, keep.limit or 1000)
    for _, id in ipairs(old) do
      deleteFinishedJobDetached(Q, id)
    end
    batchedCall("ZREM", finishedKey, old)
  end
  if keep.count and keep.count > 0 then
    local extra = redis.call("ZREVRANGE", finishedKey, keep.count, keep.count + 999)
    for _, id in ipairs(extra) do
      deleteFinishedJobDetached(Q, id)
    end
    batchedCall("ZREM", finishedKey, extra)
  end
end
