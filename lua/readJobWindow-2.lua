--[[
  Reads one window of a state's jobs for the console's search and export: the ids at
  [offset, offset + count) from one end of the state's list or sorted set, and for each id the
  asked hash fields, sized first so a huge job is never copied into the reply.

  Read-only. One call touches at most `count` jobs (the caller keeps it to a few hundred), so it
  runs in a few milliseconds: a big state is read in many calls, and other clients run between
  them. Doing the window and the reads in one call halves the round trips of a pipelined scan and
  sizes each job with no reply per field.

  The waiting and delayed states include the tenant groups' jobs (includes/groupedStateViews.lua):
  a window of Q wait walks on into every ready group's line (group id order), one of Q delayed
  into Q group-delayed; `length` counts them all.

  KEYS[1] state (the state's key: wait / active list, or a sorted set such as completed)
  KEYS[2] base (Q, the queue key prefix with trailing colon; a job's hash is Q .. id)

  ARGV[1] "list" or "zset"
  ARGV[2] "head" (list index 0 on, zset lowest score first) or "tail" (the other end)
  ARGV[3] offset from that end
  ARGV[4] count
  ARGV[5] bytes this call may read in all; it stops before the first job that does not fit
  ARGV[6] bytes one job may have at most; a larger one is passed over, never read
  ARGV[7] n: how many of the fields that follow are sized (the first n), the rest read unsized
  ARGV[8..] field names

  Returns { length of the state, ids looked at, then per id looked at: id, mark, and for mark
  "r" the size of its sized fields and one value per field (false when absent) }. Marks: "r"
  read, "g" gone (no hash), "L" too large (followed by its size). Fewer ids than the window when the state ended or the byte
  budget did (the caller compares with the window it asked for).
]]
--- @include "groupedStateViews"

local stateKey, Q = KEYS[1], KEYS[2]
local kind, fromEnd = ARGV[1], ARGV[2]
local offset, count = tonumber(ARGV[3]), tonumber(ARGV[4])
local bytesLeft, jobMax = tonumber(ARGV[5]), tonumber(ARGV[6])
local sizedCount = tonumber(ARGV[7])
local fields = {}
for i = 8, #ARGV do
  fields[#fields + 1] = ARGV[i]
end

local ids, length
if stateKey == Q .. "wait" and redis.call("EXISTS", Q .. "groups") == 1 then
  local lines = waitingLines(Q)
  length = totalLength(lines)
  ids = readLines(lines, offset, offset + count - 1, fromEnd == "tail")
elseif stateKey == Q .. "delayed" and redis.call("EXISTS", Q .. "group-delayed") == 1 then
  local sets = {stateKey, Q .. "group-delayed"}
  length = redis.call("ZCARD", sets[1]) + redis.call("ZCARD", sets[2])
  ids = readSetsInTurn(sets, offset, offset + count - 1, fromEnd == "tail")
elseif kind == "list" then
  length = redis.call("LLEN", stateKey)
  if fromEnd == "head" then
    ids = redis.call("LRANGE", stateKey, offset, offset + count - 1)
  else
    ids = redis.call("LRANGE", stateKey, -(offset + count), -(offset + 1))
    -- LRANGE answers head to tail; from the tail the window reads backwards.
    local reversed = {}
    for i = #ids, 1, -1 do
      reversed[#reversed + 1] = ids[i]
    end
    ids = reversed
  end
else
  length = redis.call("ZCARD", stateKey)
  if fromEnd == "head" then
    ids = redis.call("ZRANGE", stateKey, offset, offset + count - 1)
  else
    ids = redis.call("ZREVRANGE", stateKey, offset, offset + count - 1)
  end
end

local out = {length, 0}
local looked = 0
for _, id in ipairs(ids) do
  local key = Q .. id
  local size = 0
  for f = 1, sizedCount do
    size = size + redis.call("HSTRLEN", key, fields[f])
  end
  if size > jobMax then
    out[#out + 1] = id
    out[#out + 1] = "L"
    out[#out + 1] = size
  elseif size > bytesLeft then
    break
  else
    local values = redis.call("HMGET", key, unpack(fields))
    local present = false
    for f = 1, #fields do
      if values[f] then
        present = true
      else
        values[f] = false
      end
    end
    out[#out + 1] = id
    if present then
      out[#out + 1] = "r"
      out[#out + 1] = size
      for f = 1, #fields do
        out[#out + 1] = values[f]
      end
      bytesLeft = bytesLeft - size
    else
      out[#out + 1] = "g"
    end
  end
  looked = looked + 1
end
out[2] = looked
return out
