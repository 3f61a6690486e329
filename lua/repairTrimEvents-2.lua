--[[
  Integrity repair of events-over-cap (docs/integrity.md, "Repairs"): trims the events stream to
  the queue's cap (opts.maxLenEvents of Q meta), with MAXLEN ~ first and exactly when trimming
  whole stream nodes left it over the tolerance (engine/admin/redis/integrity/events-cap.ts).

  KEYS[1] meta  KEYS[2] events

  ARGV[1] the cap when meta has none  ARGV[2] least tolerance  ARGV[3] tolerance ratio of the cap

  Returns {1, "<before> -> <after> entries (cap <cap>)"} or {0, why nothing was written}.
]]
local cap = tonumber(redis.call("HGET", KEYS[1], "opts.maxLenEvents") or "") or tonumber(ARGV[1])
local slack = math.max(tonumber(ARGV[2]), math.ceil(cap * tonumber(ARGV[3])))
local before = redis.call("XLEN", KEYS[2])
if before <= cap + slack then
  return {0, "the stream is within its cap"}
end
redis.call("XTRIM", KEYS[2], "MAXLEN", "~", cap)
if redis.call("XLEN", KEYS[2]) > cap + slack then
  redis.call("XTRIM", KEYS[2], "MAXLEN", cap)
end
return {1, before .. " -> " .. redis.call("XLEN", KEYS[2]) .. " entries (cap " .. cap .. ")"}
