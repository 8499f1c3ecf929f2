-- GCBench (Ellis, Kovac; Boehm), the same algorithm, arguments and output as
-- workloads/gcbench/gcbench.kith: STRETCH_DEPTH (default 18) scales the other sizes;
-- PrintDiagnostics is left out; timings print as "took N msec" and "Completed in N ms.".
local function newNode(l, r) return {left = l, right = r, i = 0, j = 0} end

local kStretchTreeDepth = tonumber(arg[1]) or 18
local kLongLivedTreeDepth = kStretchTreeDepth - 2
local kArraySize = 500000 >> (18 - kStretchTreeDepth)
local kMinTreeDepth = 4
local kMaxTreeDepth = kStretchTreeDepth - 2

local function TreeSize(i) return (1 << (i + 1)) - 1 end
local function NumIters(i) return 2 * TreeSize(kStretchTreeDepth) // TreeSize(i) end

local function Populate(iDepth, thisNode)
  if iDepth <= 0 then return end
  iDepth = iDepth - 1
  thisNode.left = newNode(nil, nil)
  thisNode.right = newNode(nil, nil)
  Populate(iDepth, thisNode.left)
  Populate(iDepth, thisNode.right)
end

local function MakeTree(iDepth)
  if iDepth <= 0 then return newNode(nil, nil) end
  return newNode(MakeTree(iDepth - 1), MakeTree(iDepth - 1))
end

local function msec(seconds) return math.floor(seconds * 1000) end

local function TimeConstruction(depth)
  local iNumIters = NumIters(depth)
  print("Creating " .. iNumIters .. " trees of depth " .. depth)
  local tStart = os.clock()
  for _ = 1, iNumIters do
    local tempTree = newNode(nil, nil)
    Populate(depth, tempTree)
    tempTree = nil
  end
  local tFinish = os.clock()
  print("\tTop down construction took " .. msec(tFinish - tStart) .. " msec")
  tStart = os.clock()
  for _ = 1, iNumIters do
    local tempTree = MakeTree(depth)
    tempTree = nil
  end
  tFinish = os.clock()
  print("\tBottom up construction took " .. msec(tFinish - tStart) .. " msec")
end

local function countNodes(node)
  if node == nil then return 0 end
  return 1 + countNodes(node.left) + countNodes(node.right)
end

print("Garbage Collector Test")
print(" Stretching memory with a binary tree of depth " .. kStretchTreeDepth)
local tStart = os.clock()
local tempTree = MakeTree(kStretchTreeDepth)
tempTree = nil

print(" Creating a long-lived binary tree of depth " .. kLongLivedTreeDepth)
local longLivedTree = newNode(nil, nil)
Populate(kLongLivedTreeDepth, longLivedTree)

print(" Creating a long-lived array of " .. kArraySize .. " doubles")
local array = {}
for i = 1, kArraySize do array[i] = 0.0 end       -- Lua index i + 1 holds Java's array[i]
for i = 0, kArraySize // 2 - 1 do array[i + 1] = 1.0 / i end

for d = kMinTreeDepth, kMaxTreeDepth, 2 do TimeConstruction(d) end

local probe = math.min(1000, kArraySize // 2 - 1)
if longLivedTree == nil or array[probe + 1] ~= 1.0 / probe then print("Failed") end

local tFinish = os.clock()
print("Completed in " .. msec(tFinish - tStart) .. " ms.")

local nodes = countNodes(longLivedTree)
if nodes == TreeSize(kLongLivedTreeDepth) and array[probe + 1] == 1.0 / probe then
  print("check passed: long-lived tree of depth " .. kLongLivedTreeDepth .. " has " .. nodes .. " nodes")
else
  print("check FAILED: long-lived tree of depth " .. kLongLivedTreeDepth .. " has " .. nodes ..
        " nodes, expected " .. TreeSize(kLongLivedTreeDepth))
  os.exit(1)
end
