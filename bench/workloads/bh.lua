-- JOlden bh (Barnes-Hut), the same algorithm, arguments and output as
-- workloads/jolden/bh.kith: BODIES [STEPS] (default 1024 10); an octree rebuilt every step,
-- MathVector objects with their own 3-element arrays, cloned as in Java.
local NDIM, NSUB, IMAX, EPS, DTIME, TSTOP = 3, 8, 1073741824, 0.05, 0.0125, 2.0

local function javaD2I(x)
  if x ~= x then return 0 end
  if x >= 2147483647.0 then return 2147483647 end
  if x <= -2147483648.0 then return -2147483648 end
  return math.tointeger(x >= 0 and math.floor(x) or math.ceil(x))
end

local function myRand(seed)
  local t = 16807.0 * seed + 1
  return t - (2147483647.0 * math.floor(t / 2147483647.0))
end

local function xRand(xl, xh, r) return xl + (xh - xl) * r / 2147483647.0 end

local MathVector = {}
MathVector.__index = MathVector
function MathVector.new() return setmetatable({data = {0.0, 0.0, 0.0}}, MathVector) end
function MathVector:clone()
  local v = MathVector.new()
  for i = 1, NDIM do v.data[i] = self.data[i] end
  return v
end
function MathVector:value(i) return self.data[i + 1] end
function MathVector:setValue(i, v) self.data[i + 1] = v end
function MathVector:addition(u) for i = 1, NDIM do self.data[i] = self.data[i] + u.data[i] end end
function MathVector:subtraction(u) for i = 1, NDIM do self.data[i] = self.data[i] - u.data[i] end end
function MathVector:subtraction2(u, v) for i = 1, NDIM do self.data[i] = u.data[i] - v.data[i] end end
function MathVector:multScalar(s) for i = 1, NDIM do self.data[i] = self.data[i] * s end end
function MathVector:multScalar2(u, s) for i = 1, NDIM do self.data[i] = u.data[i] * s end end
function MathVector:divScalar(s) for i = 1, NDIM do self.data[i] = self.data[i] / s end end
function MathVector:dotProduct()
  local s = 0.0
  for i = 1, NDIM do s = s + self.data[i] * self.data[i] end
  return s
end
function MathVector:addScalar(u, s) for i = 1, NDIM do self.data[i] = u.data[i] + s end end

local function newHG(b, p) return {pskip = b, pos0 = p:clone(), phi0 = 0.0, acc0 = MathVector.new()} end

local function oldSubindex(ic, l)
  local i = 0
  for k = 0, NDIM - 1 do
    if (javaD2I(ic:value(k)) & l) ~= 0 then i = i + (NSUB >> (k + 1)) end
  end
  return i
end

-- Node: the common part of cells and bodies
local Node = {}
Node.__index = Node
function Node:gravSub(hg)
  local dr = MathVector.new()
  dr:subtraction2(self.pos, hg.pos0)
  local drsq = dr:dotProduct() + (EPS * EPS)
  local drabs = math.sqrt(drsq)
  local phii = self.mass / drabs
  hg.phi0 = hg.phi0 - phii
  local mor3 = phii / drsq
  dr:multScalar(mor3)
  hg.acc0:addition(dr)
  return hg
end

local Cell = setmetatable({}, {__index = Node})
Cell.__index = Cell
function Cell.new() return setmetatable({mass = 0.0, pos = MathVector.new(), subp = {}, next = nil}, Cell) end
function Cell:loadTree(p, xpic, l, tree)
  local si = oldSubindex(xpic, l) + 1
  local rt = self.subp[si]
  if rt ~= nil then self.subp[si] = rt:loadTree(p, xpic, l >> 1, tree) else self.subp[si] = p end
  return self
end
function Cell:hackcofm()
  local mq = 0.0
  local tmpPos, tmpv = MathVector.new(), MathVector.new()
  for i = 1, NSUB do
    local r = self.subp[i]
    if r ~= nil then
      local mr = r:hackcofm()
      mq = mr + mq
      tmpv:multScalar2(r.pos, mr)
      tmpPos:addition(tmpv)
    end
  end
  self.mass = mq
  self.pos = tmpPos
  self.pos:divScalar(self.mass)
  return mq
end
function Cell:walkSubTree(dsq, hg)
  if self:subdivp(dsq, hg) then
    for k = 1, NSUB do
      local r = self.subp[k]
      if r ~= nil then hg = r:walkSubTree(dsq / 4.0, hg) end
    end
  else
    hg = self:gravSub(hg)
  end
  return hg
end
function Cell:subdivp(dsq, hg)
  local dr = MathVector.new()
  dr:subtraction2(self.pos, hg.pos0)
  return dr:dotProduct() < dsq
end

local Body = setmetatable({}, {__index = Node})
Body.__index = Body
function Body.new()
  return setmetatable({mass = 0.0, pos = MathVector.new(), vel = MathVector.new(), acc = MathVector.new(),
                       newAcc = MathVector.new(), phi = 0.0, next = nil, procNext = nil}, Body)
end
function Body:icTest(tree)
  local result = true
  for k = 0, NDIM - 1 do
    local xsc = (self.pos:value(k) - tree.rmin:value(k)) / tree.rsize
    if not (0.0 < xsc and xsc < 1.0) then result = false end
  end
  return result
end
function Body:expandBox(tree, nsteps)
  local rmid = MathVector.new()
  local inbox = self:icTest(tree)
  while not inbox do
    local rsize = tree.rsize
    rmid:addScalar(tree.rmin, 0.5 * rsize)
    for k = 0, NDIM - 1 do
      if self.pos:value(k) < rmid:value(k) then
        local rmin = tree.rmin:value(k)
        tree.rmin:setValue(k, rmin - rsize)
      end
    end
    tree.rsize = 2.0 * rsize
    if tree.root ~= nil then
      local ic = tree:intcoord(rmid)
      if ic == nil then error("Value is out of bounds") end
      local k = oldSubindex(ic, IMAX >> 1)
      local newt = Cell.new()
      newt.subp[k + 1] = tree.root
      tree.root = newt
      inbox = self:icTest(tree)
    end
  end
end
function Body:subindex(tree, l)
  local xp = MathVector.new()
  for k = 0, NDIM - 1 do
    local xsc = (self.pos:value(k) - tree.rmin:value(k)) / tree.rsize
    xp:setValue(k, math.floor(IMAX * xsc) + 0.0)
  end
  local i = 0
  for k = 0, NDIM - 1 do
    if (javaD2I(xp:value(k)) & l) ~= 0 then i = i + (NSUB >> (k + 1)) end
  end
  return i
end
function Body:loadTree(p, xpic, l, tree)
  local retval = Cell.new()
  local si = self:subindex(tree, l) + 1
  retval.subp[si] = self
  si = oldSubindex(xpic, l) + 1
  local rt = retval.subp[si]
  if rt ~= nil then retval.subp[si] = rt:loadTree(p, xpic, l >> 1, tree) else retval.subp[si] = p end
  return retval
end
function Body:hackcofm() return self.mass end
function Body:hackGravity(rsize, root)
  local hg = newHG(self, self.pos)
  hg = root:walkSubTree(rsize * rsize, hg)
  self.phi = hg.phi0
  self.newAcc = hg.acc0
end
function Body:walkSubTree(dsq, hg)
  if self ~= hg.pskip then hg = self:gravSub(hg) end
  return hg
end

local Tree = {}
Tree.__index = Tree
function Tree.new()
  local t = setmetatable({rmin = MathVector.new(), rsize = -2.0 * -2.0, root = nil}, Tree)
  for k = 0, NDIM - 1 do t.rmin:setValue(k, -2.0) end
  return t
end
function Tree:intcoord(vp)
  local xp = MathVector.new()
  for k = 0, NDIM - 1 do
    local xsc = (vp:value(k) - self.rmin:value(k)) / self.rsize
    if 0.0 <= xsc and xsc < 1.0 then xp:setValue(k, math.floor(IMAX * xsc) + 0.0) else return nil end
  end
  return xp
end
function Tree:createTestData(nbody)
  local cmr, cmv = MathVector.new(), MathVector.new()
  local head = Body.new()
  local prev = head
  local rsc = 3.0 * math.pi / 16.0
  local vsc = math.sqrt(1.0 / rsc)
  local seed = 123.0
  for _ = 1, nbody do
    local p = Body.new()
    prev.next = p
    prev = p
    p.mass = 1.0 / nbody
    seed = myRand(seed)
    local t1 = xRand(0.0, 0.999, seed)
    t1 = t1 ^ (-2.0 / 3.0) - 1.0
    local r = 1.0 / math.sqrt(t1)
    local coeff = 4.0
    for k = 0, NDIM - 1 do
      seed = myRand(seed)
      r = xRand(0.0, 0.999, seed)
      p.pos:setValue(k, coeff * r)
    end
    cmr:addition(p.pos)
    local x, y
    repeat
      seed = myRand(seed)
      x = xRand(0.0, 1.0, seed)
      seed = myRand(seed)
      y = xRand(0.0, 0.1, seed)
    until not (y > x * x * (1.0 - x * x) ^ 3.5)
    local v = math.sqrt(2.0) * x / (1 + r * r) ^ 0.25
    local rad = vsc * v
    local rsq
    repeat
      for k = 0, NDIM - 1 do
        seed = myRand(seed)
        p.vel:setValue(k, xRand(-1.0, 1.0, seed))
      end
      rsq = p.vel:dotProduct()
    until not (rsq > 1.0)
    p.vel:multScalar(rad / math.sqrt(rsq))
    cmv:addition(p.vel)
  end
  prev.next = nil
  self.bodyTab = head.next
  cmr:divScalar(nbody + 0.0)
  cmv:divScalar(nbody + 0.0)
  prev = nil
  local b = self.bodyTab
  while b ~= nil do
    b.pos:subtraction(cmr)
    b.vel:subtraction(cmv)
    b.procNext = prev
    prev = b
    b = b.next
  end
  self.bodyTabRev = prev
end

local function vp(p, nstep)
  local dacc, dvel = MathVector.new(), MathVector.new()
  local dthf = 0.5 * DTIME
  local b = p
  while b ~= nil do
    local acc1 = b.newAcc:clone()
    if nstep > 0 then
      dacc:subtraction2(acc1, b.acc)
      dvel:multScalar2(dacc, dthf)
      dvel:addition(b.vel)
      b.vel = dvel:clone()
    end
    b.acc = acc1:clone()
    dvel:multScalar2(b.acc, dthf)
    local vel1 = b.vel:clone()
    vel1:addition(dvel)
    local dpos = vel1:clone()
    dpos:multScalar(DTIME)
    dpos:addition(b.pos)
    b.pos = dpos:clone()
    vel1:addition(dvel)
    b.vel = vel1:clone()
    b = b.procNext
  end
end

function Tree:makeTree(nstep)
  local q = self.bodyTabRev
  while q ~= nil do
    if q.mass ~= 0.0 then
      q:expandBox(self, nstep)
      local xqic = self:intcoord(q.pos)
      if self.root == nil then self.root = q else self.root = self.root:loadTree(q, xqic, IMAX >> 1, self) end
    end
    q = q.procNext
  end
  self.root:hackcofm()
end

function Tree:stepSystem(nstep)
  self.root = nil
  self:makeTree(nstep)
  local b = self.bodyTabRev
  while b ~= nil do
    b:hackGravity(self.rsize, self.root)
    b = b.procNext
  end
  vp(self.bodyTabRev, nstep)
end

-- Shared with the other Lua ports, loaded from this file's folder.
local repr = dofile((arg[0]:match("^(.*/)") or "./") .. "repr.lua")

local EXPECTED = {{1024, 10, 3060.9685538292742, 1260.6874263597795}, {64, 4, 186.70015381372983, 81.622681312078740},
                  {256, 10, 757.45721743746640, 325.43715186902810}, {2048, 10, 6170.3157778152520, 2475.8385902536010},
                  {4096, 10, 12409.650687241266, 5023.3915380077400}}

local nbody = tonumber(arg[1]) or 1024
local nsteps = tonumber(arg[2]) or 10
local root = Tree.new()
root:createTestData(nbody)
local tnow, i = 0.0, 0
while tnow < TSTOP + 0.1 * DTIME and i < nsteps do
  root:stepSystem(i)
  i = i + 1
  tnow = tnow + DTIME
end
print("Done!")
local posSum, velSum = 0.0, 0.0
local b = root.bodyTab
while b ~= nil do
  for k = 0, NDIM - 1 do
    posSum = posSum + math.abs(b.pos:value(k))
    velSum = velSum + math.abs(b.vel:value(k))
  end
  b = b.next
end
local line = "bh -b " .. nbody .. " -s " .. nsteps .. ": position sum " .. repr(posSum) .. ", velocity sum " .. repr(velSum)
for _, x in ipairs(EXPECTED) do
  if x[1] == nbody and x[2] == nsteps then
    if math.abs(posSum - x[3]) > 1e-9 * math.abs(x[3]) or math.abs(velSum - x[4]) > 1e-9 * math.abs(x[4]) then
      print("check FAILED: " .. line .. "; expected " .. repr(x[3]) .. ", " .. repr(x[4]))
      os.exit(1)
    end
    print("check passed: " .. line)
    os.exit(0)
  end
end
print("check skipped (no expected values): " .. line)
