-- Runs a variadic command (ZREM, SADD, ...) on a key with many members, in slices small enough
-- for unpack's stack limit.
local function batchedCall(command, key, members)
  for from = 1, #members, 5000 do
    redis.call(command, key, unpack(members, from, math.min(from + 4999, #members)))
  end
end
