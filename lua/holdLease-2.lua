--[[
  Takes or keeps a lease (one holder among many processes), and optionally claims a numbered
  turn under it: the holder of a periodic duty (the history sampler, the notifier) claims each
  turn once, so a turn is done once even when the lease changes hands inside it.

  KEYS[1] lease (string: the holder's id, PX ttl)
  KEYS[2] last claimed turn (string: a number; lives ARGV[5] ms)
  ARGV[1] holder id     ARGV[2] lease ttl (ms)
  ARGV[3] turn to claim, or "" to only take / keep the lease
  ARGV[4] "1" to give the lease up (ARGV[3] is then ignored), else "0"
  ARGV[5] how long the last claimed turn is remembered (ms)

  Returns {held, claimed}: held 1 when the caller holds the lease after the call (0 after a give
  up or when another holds it), claimed 1 when ARGV[3] is newer than the last claimed turn and
  is now the caller's.
]]
local holder = redis.call("GET", KEYS[1])
if ARGV[4] == "1" then
  if holder == ARGV[1] then
    redis.call("DEL", KEYS[1])
  end
  return {0, 0}
end
if holder and holder ~= ARGV[1] then
  return {0, 0}
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
if ARGV[3] == "" then
  return {1, 0}
end
local last = tonumber(redis.call("GET", KEYS[2]) or "-1")
local turn = tonumber(ARGV[3])
if turn <= last then
  return {1, 0}
end
redis.call("SET", KEYS[2], ARGV[3], "PX", ARGV[5])
return {1, 1}
