-- Wake-up markers for blocked workers (BZPOPMIN on Q marker).
-- Member "0" with score 0 means "jobs are ready"; member "1" carries the due time (ms, may be
-- fractional) of the earliest delayed job.
local function signalJobsReady(markerKey, pausedOrMaxed)
  if not pausedOrMaxed then
    redis.call("ZADD", markerKey, 0, "0")
  end
end

local function signalNextDelayed(markerKey, delayedKey)
  local earliest = redis.call("ZRANGE", delayedKey, 0, 0, "WITHSCORES")
  if earliest[2] then
    redis.call("ZADD", markerKey, tonumber(earliest[2]) / 4096, "1")
  end
end

-- Earliest delayed due time in whole ms, or 0 when nothing is delayed.
local function nextDelayedDueTs(delayedKey)
  local earliest = redis.call("ZRANGE", delayedKey, 0, 0, "WITHSCORES")
  if earliest[2] then
    return math.floor(tonumber(earliest[2]) / 4096)
  end
  return 0
end
