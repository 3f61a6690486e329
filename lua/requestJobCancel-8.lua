--[[
  Asks the OxMQ worker holding an active job to cancel it, and wakes that worker: a member in
  its wake key ends its blocking wait at once (it blocks on the queue's marker and this key
  together, or on this key alone while its slots are full), so the request does not wait for
  the next heartbeat. The request is recorded on the job (`oxmq.cancel`, what the console's job
  page reads) and in the events stream (`cancel-requested`, the job's timeline).

  KEYS[1] Q active  KEYS[2] lock (Q<jobId>:lock)
  KEYS[3] worker (Q oxmq:worker:<workerId> of the lock token)
  KEYS[4] worker cancel (Q oxmq:worker:<workerId>:cancel)
  KEYS[5] worker wake (Q oxmq:worker:<workerId>:wake, a zset)
  KEYS[6] job hash (Q<jobId>)  KEYS[7] Q events  KEYS[8] Q meta
  ARGV[1] jobId  ARGV[2] the lock token the caller read ("" when none)  ARGV[3] reason
  ARGV[4] "1" for a force stop (the worker kills the sandbox child running the job), else ""
  ARGV[5] now (ms)

  Returns 0 when the job is not active, 1 when the request was left for a live OxMQ worker,
  2 when the job is active but no live OxMQ worker holds it, 3 when the lock changed since the
  caller read it (the caller reads it again).
]]
--- @include "getMaxEvents"

if not redis.call("LPOS", KEYS[1], ARGV[1]) then return 0 end
local lock = redis.call("GET", KEYS[2]) or ""
if lock ~= ARGV[2] then return 3 end
if lock == "" or redis.call("EXISTS", KEYS[3]) == 0 then return 2 end

local force = ARGV[4] == "1"
local ttl = redis.call("PTTL", KEYS[3])
redis.call("HSET", KEYS[4], ARGV[1], cjson.encode({ reason = ARGV[3], force = force }))
redis.call("ZADD", KEYS[5], 0, "cancel")
if ttl > 0 then
  redis.call("PEXPIRE", KEYS[4], ttl)
  redis.call("PEXPIRE", KEYS[5], ttl)
end

-- The job's record of the request, for the attempt now running: a second request (a force stop
-- after a cancel) keeps the time of the first, so the page counts its grace period from there.
local attempt = tonumber(redis.call("HGET", KEYS[6], "ats") or "0") or 0
local now = tonumber(ARGV[5])
local record = { at = now, reason = ARGV[3], attempt = attempt }
local previous = redis.call("HGET", KEYS[6], "oxmq.cancel")
if previous then
  local ok, decoded = pcall(cjson.decode, previous)
  if ok and type(decoded) == "table" and decoded.attempt == attempt and decoded.at then
    record.at = decoded.at
    record.reason = decoded.reason
    record.forceAt = decoded.forceAt
  end
end
if force then record.forceAt = now end
redis.call("HSET", KEYS[6], "oxmq.cancel", cjson.encode(record))

local maxEvents = getMaxEvents(KEYS[8])
redis.call("XADD", KEYS[7], "MAXLEN", "~", maxEvents, "*", "event", "cancel-requested",
  "jobId", ARGV[1], "reason", ARGV[3], "force", force and "1" or "0")
return 1
