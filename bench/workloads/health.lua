-- JOlden health, the same algorithm, arguments and output as workloads/jolden/health.kith:
-- LEVELS TIME SEED (default 5 300 1); Java's 32-bit float arithmetic emulated (fround after
-- every float operation, Java's (int) cast, Float.toString for the printed averages).
local function javaInt(x) return ((x & 0xFFFFFFFF) ~ 0x80000000) - 0x80000000 end
local function idiv(a, b)
  local q = a // b
  if q < 0 and q * b ~= a then q = q + 1 end
  return q
end
local function fround(x) return (string.unpack("f", string.pack("f", x))) end
local function floatToInt(x)
  if x ~= x then return 0 end
  if x >= 2147483647.0 then return 2147483647 end
  if x <= -2147483648.0 then return -2147483648 end
  return math.tointeger(x >= 0 and math.floor(x) or math.ceil(x))
end

-- Shared with the other Lua ports, loaded from this file's folder.
local repr = dofile((arg[0]:match("^(.*/)") or "./") .. "repr.lua")

-- Float.toString for 1e-3 <= |x| < 1e7: the shortest decimal that rounds to x
local function floatToString(x)
  if x == 0.0 then return "0.0" end
  local a = math.abs(x)
  local e10 = math.floor(math.log(a, 10))
  if 10.0 ^ e10 > a then e10 = e10 - 1 end
  if 10.0 ^ (e10 + 1) <= a then e10 = e10 + 1 end
  for p = 1, 9 do
    local k = p - 1 - e10
    local candidate
    if k >= 0 then
      local ten = 10.0 ^ k
      candidate = math.floor(x * ten + 0.5) / ten
    else
      local ten = 10.0 ^ -k
      candidate = math.floor(x / ten + 0.5) * ten
    end
    if fround(candidate) == x then return repr(candidate + 0.0) end
  end
  return repr(x)
end

-- List.java (HealthList in the Kith port)
local List = {}
List.__index = List
function List.new() return setmetatable({head = nil, tail = nil}, List) end
function List:add(p)
  local node = {object = p, next = nil}     -- a ListNode
  if self.head == nil then self.head = node else self.tail.next = node end
  self.tail = node
end
function List:delete(o)
  if self.head == nil then return end
  if self.tail.object == o then self.tail = nil end
  if self.head.object == o then
    self.head = self.head.next
    return
  end
  local p = self.head
  local ln = self.head.next
  while ln ~= nil do
    if ln.object == o then
      p.next = ln.next
      return
    end
    p = ln
    ln = ln.next
  end
end
-- ListEnumerator: advances past an element when it hands it out, as Java's
function List:elements()
  local cur = self.head
  return function()
    if cur == nil then return nil end
    local o = cur.object
    cur = cur.next
    return o
  end
end

local Hospital = {}
Hospital.__index = Hospital
function Hospital.new(level)
  local personnel = 1 << (level - 1)
  return setmetatable({personnel = personnel, freePersonnel = personnel, numWaitingPatients = 0,
                       waiting = List.new(), assess = List.new(), inside = List.new(), up = List.new()}, Hospital)
end
function Hospital:putInHospital(p)
  p.hospitalsVisited = p.hospitalsVisited + 1
  if self.freePersonnel > 0 then
    self.freePersonnel = self.freePersonnel - 1
    self.assess:add(p)
    p.timeLeft = 3
    p.time = p.time + 3
  else
    self.waiting:add(p)
  end
end
function Hospital:checkPatientsInside(returned)
  for p in self.inside:elements() do
    p.timeLeft = p.timeLeft - 1
    if p.timeLeft == 0 then
      self.freePersonnel = self.freePersonnel + 1
      self.inside:delete(p)
      returned:add(p)
    end
  end
end
function Hospital:checkPatientsAssess(v)
  local up = List.new()
  for p in self.assess:elements() do
    p.timeLeft = p.timeLeft - 1
    if p.timeLeft == 0 then
      if v:staysHere() then
        self.assess:delete(p)
        self.inside:add(p)
        p.timeLeft = 10
        p.time = p.time + 10
      else
        self.freePersonnel = self.freePersonnel + 1
        self.assess:delete(p)
        up:add(p)
      end
    end
  end
  return up
end
function Hospital:checkPatientsWaiting()
  for p in self.waiting:elements() do
    if self.freePersonnel > 0 then
      self.freePersonnel = self.freePersonnel - 1
      p.timeLeft = 3
      p.time = p.time + 3
      self.waiting:delete(p)
      self.assess:add(p)
    else
      p.time = p.time + 1
    end
  end
end

local IA, IM, IQ, IR, MASK = 16807, 2147483648.0, 127773, 2836, 123459876
local AM = fround(1.0 / IM)

local function myRand(idum)
  idum = idum ~ MASK
  local k = idiv(idum, IQ)
  idum = javaInt(IA * (idum - k * IQ) - IR * k)
  idum = idum ~ MASK
  if idum < 0 then idum = floatToInt(fround(fround(idum + 0.0) + IM)) end
  return fround(AM * fround(idum + 0.0))
end

local Village = {}
Village.__index = Village
function Village.new(level, l, p, s)
  return setmetatable({back = p, label = l, forward = {}, seed = javaInt(l * (IQ + s)),
                       hospital = Hospital.new(level), returned = List.new()}, Village)
end
function Village:staysHere()
  local rand = myRand(self.seed)
  self.seed = floatToInt(fround(rand * IM))
  return rand > 0.1 or self.back == nil
end
function Village:generatePatient()
  local rand = myRand(self.seed)
  self.seed = floatToInt(fround(rand * IM))
  if rand > 0.666 then return {hospitalsVisited = 0, time = 0, timeLeft = 0, home = self} end
  return nil
end
function Village:simulate()
  local val = {}
  for i = 4, 1, -1 do
    local v = self.forward[i]
    if v ~= nil then val[i] = v:simulate() end
  end
  for i = 4, 1, -1 do
    local l = val[i]
    if l ~= nil then
      for p in l:elements() do self.hospital:putInHospital(p) end
    end
  end
  self.hospital:checkPatientsInside(self.returned)
  local up = self.hospital:checkPatientsAssess(self)
  self.hospital:checkPatientsWaiting()
  local p = self:generatePatient()
  if p ~= nil then self.hospital:putInHospital(p) end
  return up
end
function Village:getResults()
  local fval = {}
  for i = 4, 1, -1 do
    local v = self.forward[i]
    if v ~= nil then fval[i] = v:getResults() end
  end
  local r = {totalPatients = 0.0, totalTime = 0.0, totalHospitals = 0.0}
  for i = 4, 1, -1 do
    if fval[i] ~= nil then
      r.totalHospitals = fround(r.totalHospitals + fval[i].totalHospitals)
      r.totalPatients = fround(r.totalPatients + fval[i].totalPatients)
      r.totalTime = fround(r.totalTime + fval[i].totalTime)
    end
  end
  for p in self.returned:elements() do
    r.totalHospitals = fround(r.totalHospitals + fround(p.hospitalsVisited + 0.0))
    r.totalTime = fround(r.totalTime + fround(p.time + 0.0))
    r.totalPatients = fround(r.totalPatients + 1.0)
  end
  return r
end

local function createVillage(level, label, back, seed)
  if level == 0 then return nil end
  local village = Village.new(level, label, back, seed)
  for i = 3, 0, -1 do
    village.forward[i + 1] = createVillage(level - 1, (label * 4) + i + 1, village, seed)
  end
  return village
end

local EXPECTED = {["5 300 1"] = {"10293.0", "95.11804", "1.0732536"}, ["5 200 1"] = {"6738.0", "65.4114", "1.071683"},
                  ["5 500 1"] = {"17408.0", "154.42181", "1.0724955"}, ["4 100 1"] = {"786.0", "35.749363", "1.06743"},
                  ["3 50 1"] = {"80.0", "20.775", "1.025"}, ["6 500 1"] = {"69993.0", "154.25249", "1.0755789"}}

local maxLevel, maxTime, seed = 5, 300, 1
if #arg > 2 then maxLevel, maxTime, seed = tonumber(arg[1]), tonumber(arg[2]), tonumber(arg[3]) end
local top = createVillage(maxLevel, 0, nil, seed)
for _ = 1, maxTime do top:simulate() end
local r = top:getResults()
local people = floatToString(r.totalPatients)
local stay = floatToString(fround(r.totalTime / r.totalPatients))
local hospitals = floatToString(fround(r.totalHospitals / r.totalPatients))
print("# of people treated:            " .. people .. " people")
print("Average length of stay:         " .. stay .. " time units")
print("Average # of hospitals visited: " .. hospitals)
print("Done!")
local line = "health -l " .. maxLevel .. " -t " .. maxTime .. " -s " .. seed .. ": " .. people .. " people, " ..
             stay .. " time units, " .. hospitals .. " hospitals"
local x = EXPECTED[maxLevel .. " " .. maxTime .. " " .. seed]
if x == nil then
  print("check skipped (no expected values): " .. line)
elseif people ~= x[1] or stay ~= x[2] or hospitals ~= x[3] then
  print("check FAILED: " .. line .. "; expected " .. x[1] .. ", " .. x[2] .. ", " .. x[3])
  os.exit(1)
else
  print("check passed: " .. line)
end
