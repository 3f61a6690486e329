--- @include "batchedCall"
-- Per-minute throughput in bullmq's layout: the hash keeps a running count and the count at the
-- last minute boundary; the list holds one number per minute, newest first.
-- count: jobs finished at `now` (1 when omitted); counting n at once leaves what n calls would.
local function collectMetrics(metricsKey, dataKey, maxDataPoints, now, count)
  count = count or 1
  local previous = redis.call("HINCRBY", metricsKey, "count", count) - count
  local last = redis.call("HMGET", metricsKey, "prevTS", "prevCount")
  if not last[1] then
    redis.call("HSET", metricsKey, "prevTS", now, "prevCount", 0)
    return
  end
  local minutes = math.floor(now / 60000) - math.floor(tonumber(last[1]) / 60000)
  if minutes > maxDataPoints then
    minutes = maxDataPoints
  end
  if minutes > 0 then
    -- LPUSH leaves its last argument at the head: the delta goes first, so the zeros of the
    -- minutes without finishes end up above it. In slices: unpack() refuses ~8000 values.
    local points = {previous - tonumber(last[2])}
    for _ = 2, minutes do
      table.insert(points, 0)
    end
    batchedCall("LPUSH", dataKey, points)
    redis.call("LTRIM", dataKey, 0, maxDataPoints - 1)
    redis.call("HSET", metricsKey, "prevCount", previous, "prevTS", now)
  end
end
