--[[
  job.removeChildDependency: the child stops being one of its parent's pending dependencies and
  forgets its parent (docs/redis-keys.md). A parent left with no pending child while it waits for them
  is released to the front of its wait list, as removing the child would (removeJobDetached).
  The parent comes from ARGV[2] or, when that is "", from the child's own `parentKey` field; its
  queue from the child's `parent` link when that names the same parent, else from the key.

  KEYS[1] child job hash

  ARGV[1] full key of the parent, or ""

  Returns 0 removed, 1 not a pending dependency of that parent (or no parent at all),
  -1 child missing, -5 parent missing.
]]
--- @include "removeJobDetached"
--- @include "splitJobKey"

local childKey = KEYS[1]
if redis.call("EXISTS", childKey) == 0 then
  return -1
end
local fields = redis.call("HMGET", childKey, "parentKey", "parent")
local parentKey = ARGV[1]
if parentKey == "" then
  parentKey = fields[1]
  if not parentKey then
    return 1
  end
end
if redis.call("EXISTS", parentKey) == 0 then
  return -5
end

local dependenciesKey = parentKey .. ":dependencies"
if redis.call("SREM", dependenciesKey, childKey) == 0 then
  return 1
end
redis.call("HDEL", childKey, "parentKey", "parent")

if redis.call("SCARD", dependenciesKey) == 0 then
  local parentBase, parentId
  if fields[1] == parentKey then
    parentBase, parentId = parentOfJob(parentKey, fields[2])
  else
    parentBase, parentId = splitJobKey(parentKey)
  end
  if parentBase and redis.call("ZREM", parentBase .. "waiting-children", parentId) == 1 then
    releaseParentToWait(parentBase, parentId)
  end
end
return 0
