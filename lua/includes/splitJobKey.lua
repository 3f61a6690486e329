-- Splits a full job key "<prefix>:<queue>:<jobId>" on its last colon into the queue base key
-- (with the trailing colon) and the job id. Returns nil for a key without a colon.
local function splitJobKey(fullKey)
  local base, jobId = string.match(fullKey, "^(.*:)([^:]*)$")
  return base, jobId
end
