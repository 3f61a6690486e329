--[[
  Integrity repair of member-without-hash (docs/integrity.md, "Repairs"): removes a job id whose
  hash is gone from the state structures. A grouped id sits in its group's line only, and its
  group is unknown once the hash is gone: the caller names the groups whose line may hold it. A
  group whose line this empties leaves the Q groups ring, as every writer of a line does.
  Nothing is written while the hash exists.

  Lists are searched and trimmed only within LIST_END_WINDOW entries of each end
  (includes/listSearch.lua): an id deep inside a longer list is left there, since taking it out
  would scan the list and hold Redis (docs/reliability.md, "Large backlogs"). A key of another
  type than its structure's holds no id and is passed over. Every list is searched before the
  first write.

  KEYS[1] base (Q, the queue key prefix with trailing colon; every key is built from it)

  ARGV[1] job id  ARGV[2..] ids of the groups whose line may hold it

  Returns {1, the structures it was removed from, comma-separated} or {0, why nothing was written}:
  "the job hash exists", "deep:<lists>" (not near either end of those long lists, found nowhere
  else) or "the id is in no state structure any more".
]]
--- @include "listSearch"

-- Copies of one id taken out of one list in a call; a list holds an id at most a few times.
local MAX_COPIES = 100

local Q = KEYS[1]
local id = ARGV[1]
if redis.call("EXISTS", Q .. id) == 1 then
  return {0, "the job hash exists"}
end

local lists = {}
for _, state in ipairs({"wait", "paused", "active"}) do
  lists[#lists + 1] = {key = Q .. state, name = state}
end
for i = 2, #ARGV do
  local name = "group:" .. ARGV[i] .. ":wait"
  lists[#lists + 1] = {key = Q .. name, name = name, gid = ARGV[i]}
end

local removed = {}
local deep = {}
local holding = {}
for _, list in ipairs(lists) do
  if redis.call("TYPE", list.key)["ok"] == "list" then
    local where = findNearListEnds(list.key, id)
    if where == "head" or where == "tail" then
      holding[#holding + 1] = list
    elseif where == "middle" then
      deep[#deep + 1] = list.name
    end
  end
end

for _, list in ipairs(holding) do
  local where = findNearListEnds(list.key, id)
  local copies = 0
  while (where == "head" or where == "tail") and copies < MAX_COPIES do
    redis.call("LREM", list.key, where == "tail" and -1 or 1, id)
    copies = copies + 1
    where = findNearListEnds(list.key, id)
  end
  removed[#removed + 1] = list.name
  if list.gid and redis.call("LLEN", list.key) == 0 then
    redis.call("LREM", Q .. "groups", 0, list.gid)
  end
end
for _, state in ipairs({"prioritized", "delayed", "group-delayed", "waiting-children", "completed", "failed"}) do
  local reply = redis.pcall("ZREM", Q .. state, id)
  if type(reply) == "number" and reply > 0 then
    removed[#removed + 1] = state
  end
end
if #removed == 0 then
  if #deep > 0 then
    return {0, "deep:" .. table.concat(deep, ",")}
  end
  return {0, "the id is in no state structure any more"}
end
redis.pcall("SREM", Q .. "stalled", id)
return {1, table.concat(removed, ",")}
