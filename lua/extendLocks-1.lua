--[[
  Renews the locks of every job a worker is running, in one call.

  KEYS[1] stalled
  ARGV[1] Q  ARGV[2] JSON array of job ids  ARGV[3] JSON array of their tokens  ARGV[4] duration (ms)

  Returns the ids whose lock was gone or owned by another token.
]]
local Q = ARGV[1]
local ids = cjson.decode(ARGV[2])
local tokens = cjson.decode(ARGV[3])
local duration = ARGV[4]
local lost = {}
for i, jobId in ipairs(ids) do
  local lockKey = Q .. jobId .. ":lock"
  if redis.call("GET", lockKey) == tokens[i] then
    redis.call("SET", lockKey, tokens[i], "PX", duration)
    redis.call("SREM", KEYS[1], jobId)
  else
    table.insert(lost, jobId)
  end
end
return lost
