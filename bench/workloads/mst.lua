-- JOlden mst, the same algorithm, arguments and output as workloads/jolden/mst.kith:
-- VERTICES [REPEAT] (default 1024 1); per-vertex chained hash tables, Bentley's MST; the
-- identity hash codes come from a java.util.Random seeded with 0, as in the Kith port.
local function javaInt(x) return ((x & 0xFFFFFFFF) ~ 0x80000000) - 0x80000000 end
local function idiv(a, b)                 -- Java's int division, truncating
  local q = a // b
  if q < 0 and q * b ~= a then q = q + 1 end
  return q
end
local function irem(a, b) return a - idiv(a, b) * b end

local MULT, MASK = 0x5DEECE66D, (1 << 48) - 1
local hashSeed = (0 ~ MULT) & MASK
local function nextIdentityHash()
  hashSeed = (hashSeed * MULT + 0xB) & MASK
  return javaInt(hashSeed >> 16) & 0x7FFFFFFF
end

local Hashtable = {}
Hashtable.__index = Hashtable
function Hashtable.new(sz) return setmetatable({array = {}, size = sz}, Hashtable) end
function Hashtable:hashMap(key) return irem(key.hashCode >> 3, self.size) end
function Hashtable:get(key)
  local ent = self.array[self:hashMap(key) + 1]
  while ent ~= nil and ent.key ~= key do ent = ent.next end
  if ent ~= nil then return ent.entry end
  return nil
end
function Hashtable:put(key, value)
  local j = self:hashMap(key) + 1
  self.array[j] = {key = key, entry = value, next = self.array[j]}   -- a HashEntry
end

local function newVertex(n, numvert)
  return {mindist = 9999999, next = n, neighbors = Hashtable.new(idiv(numvert, 4)),
          hashCode = nextIdentityHash()}
end

local CONST_m1, CONST_b, RANGE = 10000, 31415821, 2048

local function mult(p, q)
  local p1, p0 = idiv(p, CONST_m1), irem(p, CONST_m1)
  local q1, q0 = idiv(q, CONST_m1), irem(q, CONST_m1)
  return irem(p0 * q1 + p1 * q0, CONST_m1) * CONST_m1 + p0 * q0
end

local function computeDist(i, j, numvert)
  local less, gt
  if i < j then less, gt = i, j else less, gt = j, i end
  return irem(mult(less * numvert + gt, CONST_b) + 1, RANGE) + 1
end

local function newGraph(numvert)
  local nodes = {}
  local v = nil
  for i = numvert - 1, 0, -1 do
    v = newVertex(v, numvert)
    nodes[i + 1] = v
  end
  -- addEdges
  local count1 = 0
  local tmp = nodes[1]
  while tmp ~= nil do
    local hash = tmp.neighbors
    for i = 0, numvert - 1 do
      if i ~= count1 then hash:put(nodes[i + 1], computeDist(i, count1, numvert)) end
    end
    count1 = count1 + 1
    tmp = tmp.next
  end
  return {nodes = nodes}
end

local MyVertexList = nil

local function BlueRule(inserted, vlist)
  local retval = {vert = nil, dist = 0}   -- a BlueReturn
  if vlist == nil then
    retval.dist = 999999
    return retval
  end
  local prev = vlist
  retval.vert = vlist
  retval.dist = vlist.mindist
  local o = vlist.neighbors:get(inserted)
  if o ~= nil then
    if o < retval.dist then
      vlist.mindist = o
      retval.dist = o
    end
  else
    print("Not found")
  end
  local tmp = vlist.next
  while tmp ~= nil do
    if tmp == inserted then
      prev.next = tmp.next
    else
      local dist2 = tmp.mindist
      o = tmp.neighbors:get(inserted)
      if o ~= nil then
        if o < dist2 then
          tmp.mindist = o
          dist2 = o
        end
      else
        print("Not found")
      end
      if dist2 < retval.dist then
        retval.vert = tmp
        retval.dist = dist2
      end
    end
    prev = tmp
    tmp = tmp.next
  end
  return retval
end

local function doAllBlueRule(inserted)
  if inserted == MyVertexList then MyVertexList = MyVertexList.next end
  return BlueRule(inserted, MyVertexList)
end

local function computeMST(graph, numvert)
  local cost = 0
  local inserted = graph.nodes[1]
  MyVertexList = inserted.next
  numvert = numvert - 1
  while numvert ~= 0 do
    local br = doAllBlueRule(inserted)
    inserted = br.vert
    numvert = numvert - 1
    cost = cost + br.dist
  end
  return cost
end

local EXPECTED = {[1024] = 12121, [64] = 2131, [100] = 2166, [128] = 4118, [256] = 8293, [500] = 3183,
                  [512] = 10973, [1000] = 3793, [2000] = 5209}

local vertices = tonumber(arg[1]) or 1024
local rep = tonumber(arg[2]) or 1
local dist
for r = 0, rep - 1 do
  local graph = newGraph(vertices)
  local d = computeMST(graph, vertices)
  if r > 0 and d ~= dist then
    print("check FAILED: repetition " .. r .. " differs from the first")
    os.exit(1)
  end
  dist = d
end
print("MST has cost " .. dist)
print("Done!")
local e = EXPECTED[vertices]
if e ~= nil then
  if dist ~= e then
    print("check FAILED: mst -v " .. vertices .. " cost " .. dist .. ", expected " .. e)
    os.exit(1)
  end
  print("check passed: mst -v " .. vertices .. " cost " .. dist)
else
  print("check skipped (no expected cost): mst -v " .. vertices .. " cost " .. dist)
end
