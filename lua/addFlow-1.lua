--[[
  Adds flows (trees of jobs across queues). Each flow is atomic: either every node of it is
  written or, when a check of one of its nodes fails, none is; the other flows of the call are
  written all the same (bullmq's FlowProducer.addBulk adds the valid flows too). Parents come
  before their children in the node list; each child joins its parent's dependencies; parents
  whose children are all already complete (duplicates of finished jobs) are released at the end.

  KEYS[1] meta (of the first root's queue; routes the call; every other key is built from the
          nodes' queue bases, so on a cluster all queues of a flow must share one hash-tagged
          prefix)

  ARGV[1] JSON array of node tables (see includes/insertJob.lua) with `base` (Q), `flow` (the
          index of the flow the node belongs to) and `external` = true on a node whose parent is
          an existing job outside the flow
  ARGV[2] now (ms)

  Returns {0, id1, dup1, id2, dup2, ...} in node order (dup 1 = the custom id already existed).
  The nodes of a flow that was not written get, instead of {id, dup}, {the index (1-based) of
  the node whose check failed, the error code}: -5 an outside parent is missing, -7 a node's
  custom id already belongs to another parent.
]]
--- @include "insertJob"

local nodes = cjson.decode(ARGV[1])
local now = tonumber(ARGV[2])

-- First pass: every check that could fail, before anything is written; a failure drops the
-- node's whole flow.
local failedFlows = {}
for i, node in ipairs(nodes) do
  if not failedFlows[node.flow] then
    if node.external and redis.call("EXISTS", node.parentKey) == 0 then
      failedFlows[node.flow] = {-5, i}
    elseif node.customId ~= "" and node.parentKey then
      local existingKey = node.base .. node.customId
      local current = redis.call("HGET", existingKey, "parentKey")
      if current and current ~= node.parentKey and redis.call("EXISTS", current) == 1 then
        failedFlows[node.flow] = {-7, i}
      end
    end
  end
end

local reply = {0}
local parents = {}
-- What insertJob reads once per call, by queue (see its memo).
local memos = {}
-- Job keys this call wrote: a child whose parent is one of them needs no check that it exists.
local written = {}
for _, node in ipairs(nodes) do
  local failure = failedFlows[node.flow]
  if failure then
    table.insert(reply, failure[2])
    table.insert(reply, failure[1])
  else
    node.deferParentRelease = true
    node.parentWritten = node.parentKey ~= nil and written[node.parentKey] == true
    memos[node.base] = memos[node.base] or {}
    local jobId, duplicate = insertJob(queueKeysFromBase(node.base), node, now, memos[node.base])
    if not jobId then
      -- Unreachable after the first pass; kept so a broken invariant fails loudly.
      return redis.error_reply("addFlow: node insert failed with " .. tostring(duplicate))
    end
    table.insert(reply, jobId)
    table.insert(reply, duplicate and 1 or 0) -- flow nodes never deduplicate (checked client-side)
    if node.asParent and not duplicate then
      table.insert(parents, {node.base, jobId})
    end
    written[node.base .. jobId] = true
  end
end

for _, parent in ipairs(parents) do
  releaseParentIfDone(parent[1] .. parent[2], parent[1], parent[2], now)
end
return reply
