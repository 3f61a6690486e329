--[[
  Counts the jobs of tenant groups that a plain state read misses: ready jobs in the groups'
  lines (part of the waiting state) and delayed ones in Q group-delayed (part of delayed). Read
  only, so it runs at maxmemory and in a pipeline of other reads. Its cost is one LLEN and two
  reads per group that has ready jobs (includes/groupedStateViews.lua).

  KEYS[1] base (Q, the queue key prefix with trailing colon)

  Returns {waiting, delayed, oldest}: oldest is the creation time (ms) of the longest-waiting
  job at the head of a group's line, or false when no group has a ready job.
]]
--- @include "groupedStateViews"

local waiting, delayed, oldest = groupedCounts(KEYS[1])
return {waiting, delayed, oldest}
