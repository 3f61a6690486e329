-- The waiting and delayed states as a reader sees them, tenant groups included. A grouped job
-- that waits sits in its group's line (Q group:<gid>:wait), a delayed one in Q group-delayed,
-- never in Q wait or Q delayed (includes/groups.lua says why). Counts, listings and searches
-- read the state through these views so that every job is in one: docs/redis-keys.md, Groups.
--
-- The waiting view is a sequence of lines: Q wait first, then the line of every group in the
-- ring Q groups (the groups with ready jobs), in group id order, so that pages read one after
-- the other see one order. Each line is read from one end: from its head (newest first) or
-- from its tail (next to run first).

-- { {key, len}, ... }: Q wait, then each ready group's line in id order.
local function waitingLines(Q)
  local lines = {{key = Q .. "wait", len = redis.call("LLEN", Q .. "wait")}}
  local gids = redis.call("LRANGE", Q .. "groups", 0, -1)
  table.sort(gids)
  local previous = nil
  for _, gid in ipairs(gids) do
    if gid ~= previous then
      local key = Q .. "group:" .. gid .. ":wait"
      lines[#lines + 1] = {key = key, len = redis.call("LLEN", key)}
      previous = gid
    end
  end
  return lines
end

local function totalLength(lines)
  local total = 0
  for _, line in ipairs(lines) do
    total = total + line.len
  end
  return total
end

-- Ids at positions [from, to] (0-based, both within the sequence) of the lines laid end to
-- end, each line read from its head, or from its tail when fromTail.
local function readLines(lines, from, to, fromTail)
  local ids = {}
  local offset = 0
  for _, line in ipairs(lines) do
    local first, last = offset, offset + line.len - 1
    if last >= from and first <= to then
      local a = math.max(from, first) - offset
      local b = math.min(to, last) - offset
      if fromTail then
        local part = redis.call("LRANGE", line.key, -(b + 1), -(a + 1))
        for i = #part, 1, -1 do
          ids[#ids + 1] = part[i]
        end
      else
        for _, id in ipairs(redis.call("LRANGE", line.key, a, b)) do
          ids[#ids + 1] = id
        end
      end
    end
    offset = offset + line.len
    if offset > to then
      break
    end
  end
  return ids
end

-- Ids at positions [from, to] (0-based) of the sorted sets merged by score (ascending, or
-- descending when highFirst): reads the first to + 1 of each, so the cost grows with `to`.
local function readMergedSets(keys, from, to, highFirst)
  local runs = {}
  for _, key in ipairs(keys) do
    local command = highFirst and "ZREVRANGE" or "ZRANGE"
    runs[#runs + 1] = {entries = redis.call(command, key, 0, to, "WITHSCORES"), at = 1}
  end
  local ids = {}
  local position = 0
  while position <= to do
    local best = nil
    for _, run in ipairs(runs) do
      local id = run.entries[run.at]
      if id then
        local score = tonumber(run.entries[run.at + 1])
        if best == nil or (highFirst and score > best.score) or (not highFirst and score < best.score) then
          best = {run = run, id = id, score = score}
        end
      end
    end
    if best == nil then
      break
    end
    best.run.at = best.run.at + 2
    if position >= from then
      ids[#ids + 1] = best.id
    end
    position = position + 1
  end
  return ids
end

-- Ids at positions [from, to] (0-based) of the sorted sets laid end to end, each read by score
-- (ascending, or descending when highFirst): for walks that page deep into a state, where a
-- merge by score would cost the whole distance from the start on every page.
local function readSetsInTurn(keys, from, to, highFirst)
  local ids = {}
  local offset = 0
  for _, key in ipairs(keys) do
    local len = redis.call("ZCARD", key)
    if offset + len - 1 >= from and offset <= to then
      local a = math.max(from, offset) - offset
      local b = math.min(to, offset + len - 1) - offset
      for _, id in ipairs(redis.call(highFirst and "ZREVRANGE" or "ZRANGE", key, a, b)) do
        ids[#ids + 1] = id
      end
    end
    offset = offset + len
    if offset > to then
      break
    end
  end
  return ids
end

-- A [start, stop] window as Redis reads one (negative counts from the end) made absolute and
-- clamped to a sequence of `total` items; nil when it holds nothing.
local function absoluteWindow(start, stop, total)
  if start < 0 then
    start = total + start
  end
  if stop < 0 then
    stop = total + stop
  end
  start = math.max(start, 0)
  stop = math.min(stop, total - 1)
  if start > stop then
    return nil
  end
  return start, stop
end

-- Ready grouped jobs (every group's line), delayed grouped jobs, and the creation time (ms) of
-- the job next to run that has waited longest among the heads of the groups' lines (false when
-- no group has a ready job). One LLEN and two reads per group with ready jobs.
local function groupedCounts(Q)
  local waiting, oldest = 0, false
  local gids = redis.call("LRANGE", Q .. "groups", 0, -1)
  local seen = {}
  for _, gid in ipairs(gids) do
    if not seen[gid] then
      seen[gid] = true
      local key = Q .. "group:" .. gid .. ":wait"
      waiting = waiting + redis.call("LLEN", key)
      local head = redis.call("LINDEX", key, -1)
      if head then
        local created = tonumber(redis.call("HGET", Q .. head, "timestamp"))
        if created and (oldest == false or created < oldest) then
          oldest = created
        end
      end
    end
  end
  return waiting, redis.call("ZCARD", Q .. "group-delayed"), oldest
end
