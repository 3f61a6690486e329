--[[
  Replaces a job's data.
  KEYS[1] job hash   ARGV[1] data (JSON text)
  Returns 0, or -1 when the job is missing.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
redis.call("HSET", KEYS[1], "data", ARGV[1])
return 0
