--[[
  Asks the OxMQ worker holding an active job to cancel it; the worker reads the request on its
  next heartbeat.

  KEYS[1] Q active  KEYS[2] lock (Q<jobId>:lock)
  KEYS[3] worker (Q oxmq:worker:<workerId> of the lock token)
  KEYS[4] worker cancel (Q oxmq:worker:<workerId>:cancel)
  ARGV[1] jobId  ARGV[2] the lock token the caller read ("" when none)  ARGV[3] reason

  Returns 0 when the job is not active, 1 when the request was left for a live OxMQ worker,
  2 when the job is active but no live OxMQ worker holds it, 3 when the lock changed since the
  caller read it (the caller reads it again).
]]
if not redis.call("LPOS", KEYS[1], ARGV[1]) then return 0 end
local lock = redis.call("GET", KEYS[2]) or ""
if lock ~= ARGV[2] then return 3 end
if lock == "" or redis.call("EXISTS", KEYS[3]) == 0 then return 2 end
local ttl = redis.call("PTTL", KEYS[3])
redis.call("HSET", KEYS[4], ARGV[1], ARGV[3])
if ttl > 0 then redis.call("PEXPIRE", KEYS[4], ttl) end
return 1
