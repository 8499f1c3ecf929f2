-- JOlden treeadd, the same algorithm, arguments and output as workloads/jolden/treeadd.kith:
-- build a complete binary tree of LEVELS levels (default 22) whose nodes hold 1, sum it
-- depth-first; ITERATIONS (default 1) repeats both. Exits 1 if a sum is not 2^LEVELS - 1.
local TreeNode = {}
TreeNode.__index = TreeNode

function TreeNode.new(levels)
  local self = setmetatable({value = 1, left = nil, right = nil}, TreeNode)
  if levels <= 1 then
    if levels <= 0 then error("Number of levels must be positive no.") end
  else
    self.left = TreeNode.new(levels - 1)
    self.right = TreeNode.new(levels - 1)
  end
  return self
end

function TreeNode:addTree()
  local total = self.value
  if self.left ~= nil then total = total + self.left:addTree() end
  if self.right ~= nil then total = total + self.right:addTree() end
  return total
end

local levels = tonumber(arg[1]) or 22
local iterations = tonumber(arg[2]) or 1
local result
for _ = 1, iterations do
  local root = TreeNode.new(levels)
  result = root:addTree()
  if result ~= (1 << levels) - 1 then
    print("check FAILED: treeadd levels " .. levels .. " sum " .. result .. ", expected " .. ((1 << levels) - 1))
    os.exit(1)
  end
end
print("Received results of " .. result)
print("Done!")
print("check passed: treeadd levels " .. levels .. " sum " .. result)
