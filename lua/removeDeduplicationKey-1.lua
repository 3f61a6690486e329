--[[
  Ends a deduplication window, but only if the given job still owns it.
  KEYS[1] deduplication (Q de:<deduplicationId>)
  ARGV[1] jobId
  Returns 1 when the key was deleted, 0 when it named another job or did not exist.
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("DEL", KEYS[1])
  return 1
end
return 0
