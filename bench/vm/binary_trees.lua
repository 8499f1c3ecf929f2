-- Benchmarks Game binary-trees, the same algorithm as examples/binary_trees.kith:
-- a tree node is an object with two fields, check() is a method.
local Node = {}
Node.__index = Node
function Node.new(left, right) return setmetatable({left = left, right = right}, Node) end
function Node:check()
  if self.left == nil then return 1 end
  return 1 + self.left:check() + self.right:check()
end

local function bottomUp(depth)
  if depth == 0 then return Node.new(nil, nil) end
  return Node.new(bottomUp(depth - 1), bottomUp(depth - 1))
end

local maxDepth = tonumber(arg[1]) or 16
local minDepth = 4
if minDepth + 2 > maxDepth then maxDepth = minDepth + 2 end
local stretchDepth = maxDepth + 1
print("stretch tree of depth " .. stretchDepth .. "\t check: " .. bottomUp(stretchDepth):check())
local longLived = bottomUp(maxDepth)
for depth = minDepth, maxDepth, 2 do
  local iterations = 1 << (maxDepth - depth + minDepth)
  local check = 0
  for _ = 1, iterations do check = check + bottomUp(depth):check() end
  print(iterations .. "\t trees of depth " .. depth .. "\t check: " .. check)
end
print("long lived tree of depth " .. maxDepth .. "\t check: " .. longLived:check())
