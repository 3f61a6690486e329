-- Score encodings shared with bullmq 6.
-- Delayed: dueTs * 4096 plus a sequence (0..4095) that keeps FIFO order among jobs due in the
-- same millisecond; the sequence continues from the highest score already in that millisecond.
local function delayedScore(delayedKey, dueTs)
  local base = dueTs * 4096
  local top = redis.call("ZREVRANGEBYSCORE", delayedKey, base + 4095, base, "WITHSCORES", "LIMIT", 0, 1)
  if top[2] then
    local nextScore = tonumber(top[2]) + 1
    if nextScore > base + 4095 then
      nextScore = base + 4095
    end
    return nextScore
  end
  return base
end

-- Prioritized: priority * 2^32 plus a per-queue counter, so equal priorities keep FIFO order.
local function priorityScore(pcKey, priority)
  local counter = redis.call("INCR", pcKey) % 4294967296
  return priority * 4294967296 + counter
end

-- The highest delayed score due by `now` (every sequence of its millisecond), as an integer
-- string: formatted once here rather than by redis.call, which formats number arguments anew
-- on every call.
local function dueScoreBound(now)
  return string.format("%.0f", (now + 1) * 4096 - 1)
end
