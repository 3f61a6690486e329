--[[
  Changes tenant group settings: one group's own (Q group:<gid>:meta: paused, concurrency, max,
  duration) or the queue-wide defaults (Q meta: group.concurrency, group.max, group.duration;
  a group's own value wins). A named group is registered in Q groups:known. Afterwards idle
  workers are woken when grouped jobs wait, since a resumed group, a higher concurrency or a
  lifted rate limit may let them run.

  KEYS[1] hash (the one to change: Q group:<gid>:meta, or Q meta for the defaults)
  KEYS[2] Q meta  KEYS[3] marker

  ARGV[1] Q  ARGV[2] group id, or "" for the defaults
  ARGV[3] JSON {set = [field1, value1, ...], del = [field, ...]}

  Returns 1.
]]
--- @include "groups"

local Q = ARGV[1]
local change = cjson.decode(ARGV[3])
if ARGV[2] ~= "" then
  registerGroup(Q, ARGV[2])
end
if type(change.del) == "table" and #change.del > 0 then
  redis.call("HDEL", KEYS[1], unpack(change.del))
end
if type(change.set) == "table" and #change.set > 0 then
  redis.call("HSET", KEYS[1], unpack(change.set))
end
if redis.call("LLEN", Q .. "groups") > 0 then
  signalJobsReady(KEYS[3], isPausedOrMaxed(KEYS[2], Q .. "active"))
end
return 1
