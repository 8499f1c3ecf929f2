-- JOlden em3d, the same algorithm, arguments and output as workloads/jolden/em3d.kith:
-- NODES DEGREE [ITERATIONS [REPEAT]] (default 4000 100 1 1); java.util.Random emulated
-- exactly (Lua 5.4 integers are 64-bit and wrap, as Kith's); the checksum (value and
-- fromCount sums) is compared with the Java original's.
local function javaInt(x) return ((x & 0xFFFFFFFF) ~ 0x80000000) - 0x80000000 end

local MULT, MASK = 0x5DEECE66D, (1 << 48) - 1
local JavaRandom = {}
JavaRandom.__index = JavaRandom
function JavaRandom.new(seed) return setmetatable({seed = (seed ~ MULT) & MASK}, JavaRandom) end
function JavaRandom:next(bits)
  self.seed = (self.seed * MULT + 0xB) & MASK
  return javaInt(self.seed >> (48 - bits))
end
function JavaRandom:nextInt() return self:next(32) end
function JavaRandom:nextDouble()
  local high = self:next(26) << 27
  return (high + self:next(27)) * 1.1102230246251565e-16
end

local rand

local Node = {}
Node.__index = Node
function Node.new(degree)
  local self = setmetatable({}, Node)
  self.value = rand:nextDouble()
  self.toNodes = {}
  self.degree = degree                 -- toNodes.length (a Lua table has none fixed)
  self.next = nil
  self.fromNodes = nil
  self.coeffs = nil
  self.fromCount = 0
  self.fromLength = 0
  return self
end

function Node:makeUniqueNeighbors(nodeTable, tableLength)
  local toNodes = self.toNodes
  for filled = 0, self.degree - 1 do
    local otherNode
    while true do
      local index = rand:nextInt()
      if index < 0 then index = javaInt(-index) end
      index = math.fmod(index, tableLength)      -- truncating, as Java's %
      otherNode = nodeTable[index + 1]
      local k = 0
      while k < filled do
        if otherNode == toNodes[filled + 1] then break end   -- the Java original's comparison
        k = k + 1
      end
      if not (k < filled) then break end
    end
    toNodes[filled + 1] = otherNode
    otherNode.fromCount = otherNode.fromCount + 1
  end
end

function Node:makeFromNodes()
  self.fromNodes = {}
  self.coeffs = {}
  for i = 1, self.fromCount do self.coeffs[i] = 0.0 end
end

function Node:updateFromNodes()
  for i = 1, self.degree do
    local otherNode = self.toNodes[i]
    local count = otherNode.fromLength
    otherNode.fromLength = count + 1
    otherNode.fromNodes[count + 1] = self
    otherNode.coeffs[count + 1] = rand:nextDouble()
  end
end

function Node:computeNewValue()
  for i = 1, self.fromCount do
    self.value = self.value - self.coeffs[i] * self.fromNodes[i].value
  end
end

-- Node.elements(): an iterator along next
function Node:elements()
  local current = self
  return function()
    local retval = current
    if retval ~= nil then current = retval.next end
    return retval
  end
end

local function fillTable(size, degree)
  local table_ = {}
  local prevNode = Node.new(degree)
  table_[1] = prevNode
  for i = 2, size do
    local curNode = Node.new(degree)
    table_[i] = curNode
    prevNode.next = curNode
    prevNode = curNode
  end
  return table_
end

local function createBiGraph(numNodes, numDegree)
  rand = JavaRandom.new(783)
  local hTable = fillTable(numNodes, numDegree)
  local eTable = fillTable(numNodes, numDegree)
  for n in hTable[1]:elements() do n:makeUniqueNeighbors(eTable, numNodes) end
  for n in eTable[1]:elements() do n:makeUniqueNeighbors(hTable, numNodes) end
  for n in hTable[1]:elements() do n:makeFromNodes() end
  for n in eTable[1]:elements() do n:makeFromNodes() end
  for n in hTable[1]:elements() do n:updateFromNodes() end
  for n in eTable[1]:elements() do n:updateFromNodes() end
  return {eNodes = eTable[1], hNodes = hTable[1]}
end

local function compute(graph)
  for n in graph.eNodes:elements() do n:computeNewValue() end
  for n in graph.hNodes:elements() do n:computeNewValue() end
end

local function checksum(graph)
  local valueSum, fromSum = 0.0, 0
  for n in graph.eNodes:elements() do
    valueSum = valueSum + n.value
    fromSum = fromSum + n.fromCount
  end
  for n in graph.hNodes:elements() do
    valueSum = valueSum + n.value
    fromSum = fromSum + n.fromCount
  end
  return valueSum, fromSum
end

-- the shortest repr of a double, as Kith and Python print it (plain notation here)
-- Shared with the other Lua ports, loaded from this file's folder.
local repr = dofile((arg[0]:match("^(.*/)") or "./") .. "repr.lua")

local EXPECTED = {{4000, 100, 1, 4835909.3992991380, 800000}, {100, 10, 1, 921.65972546509170, 2000},
                  {1000, 50, 1, 287810.39175342750, 100000}, {2000, 100, 1, 2420444.2035519030, 400000}}

local numNodes, numDegree, numIter, rep = 4000, 100, 1, 1
if #arg > 1 then numNodes, numDegree = tonumber(arg[1]), tonumber(arg[2]) end
if #arg > 2 then numIter = tonumber(arg[3]) end
if #arg > 3 then rep = tonumber(arg[4]) end

local valueSum, fromSum
for r = 0, rep - 1 do
  local graph = createBiGraph(numNodes, numDegree)
  for _ = 1, numIter do compute(graph) end
  local v, f = checksum(graph)
  if r > 0 and (v ~= valueSum or f ~= fromSum) then
    print("check FAILED: repetition " .. r .. " differs from the first")
    os.exit(1)
  end
  valueSum, fromSum = v, f
end
print("Done!")

local line = "em3d -n " .. numNodes .. " -d " .. numDegree .. " -i " .. numIter .. ": value sum " ..
             repr(valueSum) .. ", fromCount sum " .. fromSum
for _, x in ipairs(EXPECTED) do
  if x[1] == numNodes and x[2] == numDegree and x[3] == numIter then
    if valueSum ~= x[4] or fromSum ~= x[5] then
      print("check FAILED: " .. line .. "; expected " .. repr(x[4]) .. ", " .. x[5])
      os.exit(1)
    end
    print("check passed: " .. line)
    os.exit(0)
  end
end
print("check skipped (no expected values): " .. line)
