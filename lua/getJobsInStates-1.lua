--[[
  Lists jobs of one or more states with their hashes, in the order bullmq's Queue.getJobs uses:
  each state's own [start, end] window, states concatenated in the given order. Lists (wait,
  paused, active) hold the newest job at the head, so ascending (oldest first) reads from the
  tail; sorted sets ascend by score. Ids without a hash and legacy "0:" markers are skipped, and
  the window is back-filled from the entries after it, at most ARGV[4] extra windows per state.

  Tenant groups' jobs are listed with their state (includes/groupedStateViews.lua): `wait` reads
  Q wait and then every ready group's line in group id order, each line from the same end;
  `delayed` merges Q delayed and Q group-delayed by score. Queues without groups read as before.

  KEYS[1] base (Q, the queue key prefix, with trailing colon; state keys are built from it)

  ARGV[1] start  ARGV[2] end (negative indexes count from the end, -1 the last)  ARGV[3] "1" ascending | "0" descending
  ARGV[4] max extra windows read to replace skipped ids
  ARGV[5] "jobs" | "ids" (Queue.getRanges: ids only, hashes neither read nor required)
  ARGV[6..] states: wait, paused, active, delayed, prioritized, completed, failed, waiting-children

  Returns a flat array {jobId1, hashFlat1, jobId2, hashFlat2, ...}, or {jobId1, jobId2, ...} for
  "ids"; an id appears at most once.
]]
--- @include "groupedStateViews"

local Q = KEYS[1]
local start = tonumber(ARGV[1])
local stop = tonumber(ARGV[2])
local ascending = ARGV[3] == "1"
local maxExtraWindows = tonumber(ARGV[4])
local idsOnly = ARGV[5] == "ids"
local listStates = {wait = true, paused = true, active = true}

-- The grouped view of a state, or nil when its plain key holds the whole state.
local function groupedView(state)
  if state == "wait" and redis.call("EXISTS", Q .. "groups") == 1 then
    local lines = waitingLines(Q)
    return {total = totalLength(lines), read = function(from, to)
      return readLines(lines, from, to, ascending)
    end}
  end
  if state == "delayed" and redis.call("EXISTS", Q .. "group-delayed") == 1 then
    local sets = {Q .. "delayed", Q .. "group-delayed"}
    return {total = redis.call("ZCARD", sets[1]) + redis.call("ZCARD", sets[2]),
      read = function(from, to)
        return readMergedSets(sets, from, to, not ascending)
      end}
  end
  return nil
end

local function readWindow(key, isList, from, to, view)
  if view then
    local a, b = absoluteWindow(from, to, view.total)
    if a == nil then
      return {}
    end
    return view.read(a, b)
  end
  if isList then
    if ascending then
      -- Index i from the tail is -(i + 1); to = -1 (the end) becomes index 0, the head.
      local first = -(to + 1)
      if first == 0 then
        first = 0 -- not -0, which Redis refuses as an index
      end
      local ids = redis.call("LRANGE", key, first, -(from + 1))
      local reversed = {}
      for i = #ids, 1, -1 do
        reversed[#reversed + 1] = ids[i]
      end
      return reversed
    end
    return redis.call("LRANGE", key, from, to)
  end
  if ascending then
    return redis.call("ZRANGE", key, from, to)
  end
  return redis.call("ZREVRANGE", key, from, to)
end

local result = {}
local seen = {}
for i = 6, #ARGV do
  local state = ARGV[i]
  local key = Q .. state
  local isList = listStates[state]
  local view = groupedView(state)
  -- A window with a negative index counts from the end: read it once, without back-filling.
  local wanted = nil
  if start >= 0 and stop >= 0 then
    wanted = stop - start + 1
  end
  if wanted == nil or wanted > 0 then
    local from, to = start, stop
    local found = 0
    local extraWindows = 0
    while true do
      local ids = readWindow(key, isList, from, to, view)
      for _, jobId in ipairs(ids) do
        if (wanted == nil or found < wanted) and not seen[jobId] and string.sub(jobId, 1, 2) ~= "0:" then
          if idsOnly then
            seen[jobId] = true
            found = found + 1
            result[#result + 1] = jobId
          end
          local hash = idsOnly and {} or redis.call("HGETALL", Q .. jobId)
          if #hash > 0 then
            seen[jobId] = true
            found = found + 1
            result[#result + 1] = jobId
            result[#result + 1] = hash
          end
        end
      end
      if wanted == nil or found >= wanted or #ids < (to - from + 1) or extraWindows >= maxExtraWindows then
        break
      end
      extraWindows = extraWindows + 1
      from = to + 1
      to = from + wanted - 1
    end
  end
end
return result
