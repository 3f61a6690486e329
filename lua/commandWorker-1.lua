--[[
  Leaves a command for a live OxMQ worker, read on its next heartbeat.

  KEYS[1] worker (Q oxmq:worker:<workerId>, a hash)
  ARGV[1] command (`quiet` or `resume`)

  Returns 1 when the worker's record exists, 0 when no live worker has that id.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
redis.call("HSET", KEYS[1], "command", ARGV[1])
return 1
