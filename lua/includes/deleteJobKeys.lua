-- Deletes a job hash and every key that hangs off it.
local function deleteJobKeys(jobKey)
  redis.call("DEL", jobKey, jobKey .. ":logs", jobKey .. ":dependencies", jobKey .. ":processed",
    jobKey .. ":failed", jobKey .. ":unsuccessful", jobKey .. ":lock")
end
