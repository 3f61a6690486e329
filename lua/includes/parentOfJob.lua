--- @include "splitJobKey"
-- The parent's queue base key (with the trailing colon) and id: from the `parent` JSON when it
-- is readable, else by splitting `parentKey`.
local function parentOfJob(parentKey, parentJson)
  if parentJson then
    local ok, parent = pcall(cjson.decode, parentJson)
    if ok and type(parent) == "table" and type(parent.queueKey) == "string"
        and parent.id ~= nil then
      return parent.queueKey .. ":", tostring(parent.id)
    end
  end
  return splitJobKey(parentKey)
end
