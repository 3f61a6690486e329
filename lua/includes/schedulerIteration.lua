-- True when jobId is the pending iteration of a live job scheduler: ids of iterations are
-- "repeat:<schedulerId>:<millis>" and the scheduler's score in the repeat zset is that millis.
-- Such jobs are owned by their scheduler: removal refuses them, clean and drain skip them.
local function isCurrentSchedulerIteration(repeatKey, jobId)
  if string.sub(jobId, 1, 7) ~= "repeat:" then
    return false
  end
  local schedulerId, millis = string.match(string.sub(jobId, 8), "^(.*):([^:]*)$")
  if not schedulerId then
    return false
  end
  local score = redis.call("ZSCORE", repeatKey, schedulerId)
  return score ~= false and score ~= nil and tonumber(score) == tonumber(millis)
end
