--[[
  The state of one job, looked up in the order bullmq's getState uses (needs LPOS, Redis 6.0.6+).

  KEYS[1] completed  KEYS[2] failed  KEYS[3] delayed  KEYS[4] prioritized
  KEYS[5] active     KEYS[6] wait    KEYS[7] paused (legacy list)  KEYS[8] waiting-children

  ARGV[1] jobId

  Returns "completed", "failed", "delayed" (Q delayed, or Q group-delayed for a grouped job),
  "prioritized", "active", "waiting" (wait, legacy paused list, or a grouped job's group line),
  "waiting-children" or "unknown".
]]
local jobId = ARGV[1]
local Q = string.sub(KEYS[1], 1, #KEYS[1] - #"completed")
if redis.call("ZSCORE", KEYS[1], jobId) then
  return "completed"
end
if redis.call("ZSCORE", KEYS[2], jobId) then
  return "failed"
end
if redis.call("ZSCORE", KEYS[3], jobId) or redis.call("ZSCORE", Q .. "group-delayed", jobId) then
  return "delayed"
end
if redis.call("ZSCORE", KEYS[4], jobId) then
  return "prioritized"
end
if redis.call("LPOS", KEYS[5], jobId) then
  return "active"
end
if redis.call("LPOS", KEYS[6], jobId) or redis.call("LPOS", KEYS[7], jobId) then
  return "waiting"
end
local gid = redis.call("HGET", Q .. jobId, "gid")
if gid and redis.call("LPOS", Q .. "group:" .. gid .. ":wait", jobId) then
  return "waiting"
end
if redis.call("ZSCORE", KEYS[8], jobId) then
  return "waiting-children"
end
return "unknown"
