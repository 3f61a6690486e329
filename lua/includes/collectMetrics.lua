-- Per-minute throughput in bullmq's layout: the hash keeps a running count and the count at the
-- last minute boundary; the list holds one number per minute, newest first.
local function collectMetrics(metricsKey, dataKey, maxDataPoints, now)
  local previous = redis.call("HINCRBY", metricsKey, "count", 1) - 1
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
    local points = {previous - tonumber(last[2])}
    for _ = 2, minutes do
      table.insert(points, 1, 0)
    end
    -- LPUSH inserts left to right, so the delta ends up below the zeros of the skipped minutes.
    redis.call("LPUSH", dataKey, unpack(points))
    redis.call("LTRIM", dataKey, 0, maxDataPoints - 1)
    redis.call("HSET", metricsKey, "prevCount", previous, "prevTS", now)
  end
end
