--[[
  Integrity repair of priority-counter (docs/integrity.md, "Repairs"): raises Q pc to a
  prioritized job's counter (its score mod 2^32, docs/redis-keys.md), so later jobs of the same
  priority queue behind it. No job is touched.

  KEYS[1] prioritized  KEYS[2] pc

  ARGV[1] job id

  Returns {1, "pc <old> -> <new>"} or {0, why nothing was written}.
]]
local score = redis.call("ZSCORE", KEYS[1], ARGV[1])
if not score then
  return {0, "the job is no longer prioritized"}
end
local counter = math.fmod(tonumber(score), 4294967296)
local pc = tonumber(redis.call("GET", KEYS[2]) or "0") or 0
if counter <= pc then
  return {0, "pc already covers the job"}
end
redis.call("SET", KEYS[2], string.format("%d", counter))
return {1, "pc " .. string.format("%d", pc) .. " -> " .. string.format("%d", counter)}
