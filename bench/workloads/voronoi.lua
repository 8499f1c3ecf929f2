-- JOlden voronoi, the same algorithm, arguments and output as workloads/jolden/voronoi.kith:
-- POINTS [REPEAT] (default 20000 1); Delaunay triangulation by divide and conquer on
-- quad-edges (four Edge objects sharing a 4-element array); the checksum walk of the Kith port.
local function javaInt(x) return ((x & 0xFFFFFFFF) ~ 0x80000000) - 0x80000000 end
local function idiv(a, b)
  local q = a // b
  if q < 0 and q * b ~= a then q = q + 1 end
  return q
end
local function irem(a, b) return a - idiv(a, b) * b end

local vertexSeed = 0
local function vertexMult(p, q)
  local m1 = 10000
  local p1, p0 = idiv(p, m1), irem(p, m1)
  local q1, q0 = idiv(q, m1), irem(q, m1)
  return javaInt(javaInt(irem(javaInt(p0 * q1 + p1 * q0), m1) * m1) + javaInt(p0 * q0))
end
local function vertexRandom(seed) return javaInt(vertexMult(seed, 31415821) + 1) end
local function drand()
  vertexSeed = vertexRandom(vertexSeed)
  return vertexSeed / 2147483647.0
end

local Vertex = {}
Vertex.__index = Vertex
function Vertex.new() return setmetatable({x = 0.0, y = 0.0, norm = 0.0, left = nil, right = nil}, Vertex) end

function Vertex:incircle(b, c, d)
  local dx, dy, dnorm = d.x, d.y, d.norm
  local adx, ady, anorm = self.x - dx, self.y - dy, self.norm
  local bdx, bdy, bnorm = b.x - dx, b.y - dy, b.norm
  local cdx, cdy, cnorm = c.x - dx, c.y - dy, c.norm
  local dret = (anorm - dnorm) * (bdx * cdy - bdy * cdx)
  dret = dret + (bnorm - dnorm) * (cdx * ady - cdy * adx)
  dret = dret + (cnorm - dnorm) * (adx * bdy - ady * bdx)
  return 0.0 < dret
end

function Vertex:ccw(b, c)
  return (self.x - c.x) * (b.y - c.y) - (b.x - c.x) * (self.y - c.y) > 0.0
end

function Vertex:getLow()
  local tree = self
  while tree.left ~= nil do tree = tree.left end
  return tree
end

local function createPoints(n, curmax, i)
  if n < 1 then return nil end
  local cur = Vertex.new()
  local right = createPoints(n // 2, curmax, i)
  i = i - n // 2
  cur.x = curmax.value * math.exp(math.log(drand()) / (i + 0.0))   -- / 0 gives -inf, as Java's
  cur.y = drand()
  cur.norm = cur.x * cur.x + cur.y * cur.y
  cur.right = right
  curmax.value = cur.x
  cur.left = createPoints(n // 2, curmax, i - 1)
  return cur
end

local Edge = {}
Edge.__index = Edge
function Edge.new(v, ql, pos) return setmetatable({vertex = v, quadList = ql, listPos = pos, next = nil}, Edge) end
function Edge:symmetric() return self.quadList[(self.listPos + 2) % 4 + 1] end
function Edge:rotate() return self.quadList[(self.listPos + 1) % 4 + 1] end
function Edge:rotateInv() return self.quadList[(self.listPos + 3) % 4 + 1] end
function Edge:oNext() return self.next end
function Edge:oPrev() return self:rotate().next:rotate() end
function Edge:lNext() return self:rotateInv().next:rotate() end
function Edge:lPrev() return self.next:symmetric() end
function Edge:rNext() return self:rotate().next:rotateInv() end
function Edge:rPrev() return self:symmetric().next end
function Edge:orig() return self.vertex end
function Edge:dest() return self:symmetric().vertex end

local function makeEdge(o, d)
  local ql = {}
  for k = 0, 3 do ql[k + 1] = Edge.new(nil, ql, k) end
  ql[1].next = ql[1]
  ql[2].next = ql[4]
  ql[3].next = ql[3]
  ql[4].next = ql[2]
  local base = ql[1]
  base.vertex = o
  base:symmetric().vertex = d
  return base
end

function Edge:splice(b)
  local alpha = self.next:rotate()
  local beta = b.next:rotate()
  local t1 = beta.next
  local temp = alpha.next
  alpha.next = t1
  beta.next = temp
  temp = self.next
  t1 = b.next
  b.next = temp
  self.next = t1
end

function Edge:connectLeft(b)
  local t1 = self:dest()
  local lnexta = self:lNext()
  local t2 = b:orig()
  local ans = makeEdge(t1, t2)
  ans:splice(lnexta)
  ans:symmetric():splice(b)
  return ans
end

function Edge:connectRight(b)
  local t1 = self:dest()
  local t2 = b:orig()
  local oprevb = b:oPrev()
  local ans = makeEdge(t1, t2)
  ans:splice(self:symmetric())
  ans:symmetric():splice(oprevb)
  return ans
end

function Edge:valid(basel) return basel:orig():ccw(self:dest(), basel:dest()) end

function Edge:deleteEdge()
  local f = self:oPrev()
  self:splice(f)
  f = self:symmetric():oPrev()
  self:symmetric():splice(f)
end

local function doMerge(ldo, ldi, rdi, rdo)
  while true do
    local t3 = rdi:orig()
    local t1 = ldi:orig()
    local t2 = ldi:dest()
    while t1:ccw(t2, t3) do
      ldi = ldi:lNext()
      t1 = ldi:orig()
      t2 = ldi:dest()
    end
    t2 = rdi:dest()
    if t2:ccw(t3, t1) then rdi = rdi:rPrev() else break end
  end
  local basel = rdi:symmetric():connectLeft(ldi)
  local lcand = basel:rPrev()
  local rcand = basel:oPrev()
  if basel:orig() == rdo:orig() then rdo = basel end
  if basel:dest() == ldo:orig() then ldo = basel:symmetric() end
  while true do
    local t = lcand.next
    if t:valid(basel) then
      local v4 = basel:orig()
      local v1, v3, v2 = lcand:dest(), lcand:orig(), t:dest()
      while v1:incircle(v2, v3, v4) do
        lcand:deleteEdge()
        lcand = t
        t = lcand.next
        v1, v3, v2 = lcand:dest(), lcand:orig(), t:dest()
      end
    end
    t = rcand:oPrev()
    if t:valid(basel) then
      local v4 = basel:dest()
      local v1, v2, v3 = t:dest(), rcand:dest(), rcand:orig()
      while v1:incircle(v2, v3, v4) do
        rcand:deleteEdge()
        rcand = t
        t = rcand:oPrev()
        v2, v3, v1 = rcand:dest(), rcand:orig(), t:dest()
      end
    end
    local lvalid = lcand:valid(basel)
    local rvalid = rcand:valid(basel)
    if not lvalid and not rvalid then return {left = ldo, right = rdo} end
    local v1, v2, v3, v4 = lcand:dest(), lcand:orig(), rcand:orig(), rcand:dest()
    if not lvalid or (rvalid and v1:incircle(v2, v3, v4)) then
      basel = rcand:connectLeft(basel:symmetric())
      rcand = basel:symmetric():lNext()
    else
      basel = lcand:connectRight(basel):symmetric()
      lcand = basel:rPrev()
    end
  end
end

function Vertex:buildDelaunay(extra)
  if self.right ~= nil and self.left ~= nil then
    local minx = self:getLow()
    local maxx = extra
    local delright = self.right:buildDelaunay(extra)
    local delleft = self.left:buildDelaunay(self)
    local retval = doMerge(delleft.left, delleft.right, delright.left, delright.right)
    local ldo = retval.left
    while ldo:orig() ~= minx do ldo = ldo:rPrev() end
    local rdo = retval.right
    while rdo:orig() ~= maxx do rdo = rdo:lPrev() end
    return {left = ldo, right = rdo}
  elseif self.left == nil then
    local a = makeEdge(self, extra)
    return {left = a, right = a:symmetric()}
  else
    local s1, s2, s3 = self.left, self, extra
    local a = makeEdge(s1, s2)
    local b = makeEdge(s2, s3)
    a:symmetric():splice(b)
    local c = b:connectLeft(a)
    if s1:ccw(s3, s2) then return {left = c:symmetric(), right = c} end
    local retval = {left = a, right = b:symmetric()}
    if s1:ccw(s2, s3) then c:deleteEdge() end
    return retval
  end
end

local function checksum(start)
  local stack = {start}
  local seen = {[start] = true}
  local count, sum = 0, 0.0
  while #stack > 0 do
    local e = table.remove(stack)
    count = count + 1
    sum = sum + e:orig().x + 2.0 * e:dest().y
    local n1 = e.next
    if not seen[n1] then
      seen[n1] = true
      stack[#stack + 1] = n1
    end
    local n2 = e:symmetric()
    if not seen[n2] then
      seen[n2] = true
      stack[#stack + 1] = n2
    end
  end
  return count, sum
end

-- Shared with the other Lua ports, loaded from this file's folder.
local repr = dofile((arg[0]:match("^(.*/)") or "./") .. "repr.lua")

local EXPECTED = {[20000] = {196510, 44253.681142582430}, [100] = {732, 184.90388033630356},
                  [64] = {360, 102.40878319594580}, [1000] = {6106, 1797.3536476956058},
                  [10000] = {98216, 22122.749292620112}, [50000] = {393124, 100674.06076525233}}

local points = tonumber(arg[1]) or 20000
local rep = tonumber(arg[2]) or 1
local count, sum
for r = 0, rep - 1 do
  vertexSeed = 1023
  local extra = createPoints(1, {value = 1.0}, points)
  local point = createPoints(points - 1, {value = extra.x}, points - 1)
  local edge = point:buildDelaunay(extra).left
  local c, s = checksum(edge)
  if r > 0 and (c ~= count or s ~= sum) then
    print("check FAILED: repetition " .. r .. " differs from the first")
    os.exit(1)
  end
  count, sum = c, s
end
print("Done!")
local line = "voronoi -n " .. points .. ": " .. count .. " edges, sum " .. repr(sum)
local e = EXPECTED[points]
if e ~= nil then
  if count ~= e[1] or math.abs(sum - e[2]) > 1e-9 * math.abs(e[2]) then
    print("check FAILED: " .. line .. "; expected " .. e[1] .. ", " .. repr(e[2]))
    os.exit(1)
  end
  print("check passed: " .. line)
else
  print("check skipped (no expected values): " .. line)
end
