-- Looking for one id in a list that may hold a whole backlog (a wait list of a million jobs).
-- LPOS and LREM compare entries one by one from the end they start at, so their cost is the
-- distance from that end. Each end is searched over at most LIST_END_WINDOW entries first: the
-- ids looked for are mostly near one (the newest at the head, the next to run at the tail), and
-- both windows together stay far under a millisecond. See docs/reliability.md, Large backlogs.
local LIST_END_WINDOW = 10000

-- "head" or "tail" (found within that end's window), "absent" (the windows covered the whole
-- list and it is not there) or "middle" (not near either end of a longer list: maybe inside).
local function findNearListEnds(key, id)
  if redis.call("LPOS", key, id, "MAXLEN", LIST_END_WINDOW) then
    return "head"
  end
  if redis.call("LPOS", key, id, "RANK", -1, "MAXLEN", LIST_END_WINDOW) then
    return "tail"
  end
  if redis.call("LLEN", key) <= 2 * LIST_END_WINDOW then
    return "absent"
  end
  return "middle"
end

-- Removes one id from a list, scanning from the end it is nearest to. Returns true if it was
-- there. An id deep inside a long list costs a scan up to it: a Redis list cannot drop an entry
-- from its middle without one, and the wait list must stay a plain list of ids for bullmq.
local function removeIdFromList(key, id)
  local where = findNearListEnds(key, id)
  if where == "absent" then
    return false
  end
  return redis.call("LREM", key, where == "tail" and -1 or 1, id) > 0
end
