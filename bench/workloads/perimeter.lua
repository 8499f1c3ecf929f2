-- JOlden perimeter, the same algorithm, arguments and output as
-- workloads/jolden/perimeter.kith: LEVELS [ITERATIONS] (default 16 1); a quadtree image,
-- Samet's perimeter through parent links; Java's 32-bit int arithmetic where it wraps.
local function i32(x) return ((x & 0xFFFFFFFF) ~ 0x80000000) - 0x80000000 end

local NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
local gcmp, lcmp = 4194304, 1048576

local cNorthWest, cNorthEast, cSouthWest, cSouthEast = {}, {}, {}, {}
function cNorthWest.adjacent(d) return d == NORTH or d == WEST end
function cNorthWest.reflect(d) if d == WEST or d == EAST then return cNorthEast end return cSouthWest end
function cNorthWest.child(node) return node.nw end
function cNorthEast.adjacent(d) return d == NORTH or d == EAST end
function cNorthEast.reflect(d) if d == WEST or d == EAST then return cNorthWest end return cSouthEast end
function cNorthEast.child(node) return node.ne end
function cSouthWest.adjacent(d) return d == SOUTH or d == WEST end
function cSouthWest.reflect(d) if d == WEST or d == EAST then return cSouthEast end return cNorthWest end
function cSouthWest.child(node) return node.sw end
function cSouthEast.adjacent(d) return d == SOUTH or d == EAST end
function cSouthEast.reflect(d) if d == WEST or d == EAST then return cSouthWest end return cNorthEast end
function cSouthEast.child(node) return node.se end

local QuadTreeNode = {}
QuadTreeNode.__index = QuadTreeNode
local BlackNode = setmetatable({}, {__index = QuadTreeNode})
BlackNode.__index = BlackNode
local WhiteNode = setmetatable({white = true}, {__index = QuadTreeNode})
WhiteNode.__index = WhiteNode
local GreyNode = setmetatable({grey = true}, {__index = QuadTreeNode})
GreyNode.__index = GreyNode

local function newNode(class, quad, parent)
  return setmetatable({quadrant = quad, nw = nil, ne = nil, sw = nil, se = nil, parent = parent}, class)
end

function QuadTreeNode:gtEqualAdjNeighbor(d)
  local q
  if self.parent ~= nil and self.quadrant.adjacent(d) then
    q = self.parent:gtEqualAdjNeighbor(d)
  else
    q = self.parent
  end
  if q ~= nil and q.grey then return self.quadrant.reflect(d).child(q) end
  return q
end

function QuadTreeNode:countTree()
  if self.nw == nil and self.ne == nil and self.sw == nil and self.se == nil then return 1 end
  return self.sw:countTree() + self.se:countTree() + self.ne:countTree() + self.nw:countTree()
end

local blackSides = {{NORTH, cSouthEast, cSouthWest}, {EAST, cSouthWest, cNorthWest},
                    {SOUTH, cNorthWest, cNorthEast}, {WEST, cNorthEast, cSouthEast}}
function BlackNode:perimeter(size)
  local retval = 0
  for _, s in ipairs(blackSides) do
    local neighbor = self:gtEqualAdjNeighbor(s[1])
    if neighbor == nil or neighbor.white then
      retval = retval + size
    elseif neighbor.grey then
      retval = retval + neighbor:sumAdjacent(s[2], s[3], size)
    end
  end
  return retval
end
function BlackNode:sumAdjacent(quad1, quad2, size) return 0 end

function WhiteNode:perimeter(size) return 0 end
function WhiteNode:sumAdjacent(quad1, quad2, size) return size end

function GreyNode:perimeter(size)
  size = size // 2
  return self.sw:perimeter(size) + self.se:perimeter(size) + self.ne:perimeter(size) + self.nw:perimeter(size)
end
function GreyNode:sumAdjacent(quad1, quad2, size)
  local child1, child2 = quad1.child(self), quad2.child(self)
  size = size // 2
  return child1:sumAdjacent(quad1, quad2, size) + child2:sumAdjacent(quad1, quad2, size)
end

local function checkOutside(x, y)
  local euclid = i32(x * x + y * y)
  if euclid > gcmp then return 1 end
  if euclid < lcmp then return -1 end
  return 0
end

local function checkIntersect(cx, cy, size)
  local a, b = checkOutside(cx + size, cy + size), checkOutside(cx + size, cy - size)
  local c, d = checkOutside(cx - size, cy - size), checkOutside(cx - size, cy + size)
  if a == 0 and b == 0 and c == 0 and d == 0 then return 2 end
  local s = a + b + c + d
  if s == 4 or s == -4 then return 0 end
  return 1
end

local function createTree(size, cx, cy, parent, quadrant, level)
  local node
  local intersect = checkIntersect(cx, cy, size)
  size = size // 2
  if intersect == 0 and size < 512 then
    node = newNode(WhiteNode, quadrant, parent)
  elseif intersect == 2 then
    node = newNode(BlackNode, quadrant, parent)
  elseif level == 0 then
    node = newNode(BlackNode, quadrant, parent)
  else
    node = newNode(GreyNode, quadrant, parent)
    local sw = createTree(size, cx - size, cy - size, node, cSouthWest, level - 1)
    local se = createTree(size, cx + size, cy - size, node, cSouthEast, level - 1)
    local ne = createTree(size, cx + size, cy + size, node, cNorthEast, level - 1)
    local nw = createTree(size, cx - size, cy + size, node, cNorthWest, level - 1)
    node.nw, node.ne, node.sw, node.se = nw, ne, sw, se
  end
  return node
end

local EXPECTED = {[16] = {111872, 339688}, [12] = {27968, 83728}, [13] = {39552, 118528},
                  [14] = {55936, 168064}, [15] = {79104, 238048}, [17] = {1075600, 4728748},
                  [18] = {8445200, 37766632}}

local levels = tonumber(arg[1]) or 16
local iterations = tonumber(arg[2]) or 1
local size = 1 << levels
local msize = 1 << (levels - 1)
gcmp = i32(size * 1024)
lcmp = i32(msize * 1024)
local leaves, perm
for i = 0, iterations - 1 do
  local tree = createTree(msize, 0, 0, nil, cSouthEast, levels)
  local tl = tree:countTree()
  local tp = tree:perimeter(size)
  if i > 0 and (tl ~= leaves or tp ~= perm) then
    print("check FAILED: iteration " .. i .. " differs from the first")
    os.exit(1)
  end
  leaves, perm = tl, tp
end
print("Perimeter is " .. perm)
print("Number of leaves " .. leaves)
print("Done!")
local e = EXPECTED[levels]
if e ~= nil then
  if perm ~= e[1] or leaves ~= e[2] then
    print("check FAILED: perimeter levels " .. levels .. ": perimeter " .. perm .. ", leaves " .. leaves ..
          "; expected " .. e[1] .. ", " .. e[2])
    os.exit(1)
  end
  print("check passed: perimeter levels " .. levels .. " perimeter " .. perm .. " leaves " .. leaves)
else
  print("check skipped: no expected values for levels " .. levels)
end
