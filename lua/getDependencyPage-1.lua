--[[
  One page of a parent's pending children (`<job>:dependencies`, a set of full job keys) or of
  its processed children (`<job>:processed`, a hash: full job key -> return value JSON), with
  each listed child's job hash. Sets and hashes have no order of their own: the page is a window
  of SSCAN / HSCAN order, read with bounded steps and stopped as soon as the window is full.

  KEYS[1] record (the record key: `<job>:dependencies` or `<job>:processed`)

  ARGV[1] "set" | "hash"  ARGV[2] start (>= 0)  ARGV[3] end (-1: to the end)
  ARGV[4] SCAN COUNT hint per step

  Returns {total, {member1, value1 or false, hashFlat1}, {member2, ...}, ...}
  (hashFlat is {} when the child's hash no longer exists).
]]
local key = KEYS[1]
local isHash = ARGV[1] == "hash"
local start = tonumber(ARGV[2])
local stop = tonumber(ARGV[3])
local step = tonumber(ARGV[4])

local total
if isHash then
  total = redis.call("HLEN", key)
else
  total = redis.call("SCARD", key)
end

local reply = {total}
if total == 0 or (stop >= 0 and stop < start) then
  return reply
end

local index = 0
local cursor = "0"
repeat
  local scan
  if isHash then
    scan = redis.call("HSCAN", key, cursor, "COUNT", step)
  else
    scan = redis.call("SSCAN", key, cursor, "COUNT", step)
  end
  cursor = scan[1]
  local entries = scan[2]
  local width = 1
  if isHash then
    width = 2
  end
  for i = 1, #entries, width do
    if index >= start and (stop < 0 or index <= stop) then
      local member = entries[i]
      local value = false
      if isHash then
        value = entries[i + 1]
      end
      reply[#reply + 1] = {member, value, redis.call("HGETALL", member)}
    end
    index = index + 1
  end
until cursor == "0" or (stop >= 0 and index > stop)
return reply
