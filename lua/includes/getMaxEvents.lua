-- Approximate MAXLEN of the events stream, read from meta (written with the default when absent,
-- because bullmq readers and writers expect the field to exist once a queue is used).
local function getMaxEvents(metaKey)
  local maxEvents = redis.call("HGET", metaKey, "opts.maxLenEvents")
  if not maxEvents then
    maxEvents = 10000
    redis.call("HSET", metaKey, "opts.maxLenEvents", maxEvents)
  end
  return maxEvents
end
