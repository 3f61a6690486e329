-- Wake-up markers for blocked workers (BZPOPMIN on Q marker).
-- Member "0" with score 0 means "jobs are ready"; member "1" carries the due time (ms, may be
-- fractional) of the earliest delayed job, grouped ones (Q group-delayed) included.
local function signalJobsReady(markerKey, pausedOrMaxed)
  if not pausedOrMaxed then
    redis.call("ZADD", markerKey, "0", "0")
  end
end

-- The lowest score of Q delayed and of its grouped twin Q group-delayed (same encoding), or nil.
-- delayedKey is always Q .. "delayed".
local function earliestDelayedScore(delayedKey)
  local best = nil
  for _, key in ipairs({delayedKey, string.sub(delayedKey, 1, -8) .. "group-delayed"}) do
    local earliest = redis.call("ZRANGE", key, 0, 0, "WITHSCORES")
    if earliest[2] then
      local score = tonumber(earliest[2])
      if not best or score < best then
        best = score
      end
    end
  end
  return best
end

local function signalNextDelayed(markerKey, delayedKey)
  local earliest = earliestDelayedScore(delayedKey)
  if earliest then
    redis.call("ZADD", markerKey, earliest / 4096, "1")
  end
end

-- Earliest delayed due time in whole ms, or 0 when nothing is delayed.
local function nextDelayedDueTs(delayedKey)
  local earliest = earliestDelayedScore(delayedKey)
  if earliest then
    return math.floor(earliest / 4096)
  end
  return 0
end

-- Makes sure blocked workers wake by dueTs (ms): member "1" is moved earlier, never later.
local function signalWakeBy(markerKey, dueTs)
  local current = redis.call("ZSCORE", markerKey, "1")
  if not current or tonumber(current) > dueTs then
    redis.call("ZADD", markerKey, dueTs, "1")
  end
end
