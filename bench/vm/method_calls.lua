-- Method calls, the same algorithm as examples/method_calls.kith: virtual
-- dispatch, a super call, field reads and writes in a loop.
local Counter = {}
Counter.__index = Counter
function Counter.new() return setmetatable({count = 0}, Counter) end
function Counter:step(k) self.count = self.count + k; return self end
function Counter:value() return self.count end

local DoublingCounter = setmetatable({}, {__index = Counter})
DoublingCounter.__index = DoublingCounter
function DoublingCounter.new() return setmetatable({count = 0}, DoublingCounter) end
function DoublingCounter:step(k) return Counter.step(self, 2 * k) end

local Toggle = {}
Toggle.__index = Toggle
function Toggle.new(state) return setmetatable({state = state}, Toggle) end
function Toggle:activate() self.state = not self.state; return self end
function Toggle:value() return self.state end

local n = tonumber(arg[1]) or 1000000
local counters = {Counter.new(), DoublingCounter.new()}
local toggle = Toggle.new(true)
for i = 0, n - 1 do
  counters[i % 2 + 1]:step(i)
  toggle:activate()
end
local evenSum, oddSum = 0, 0
for i = 0, n - 1 do
  if i % 2 == 0 then evenSum = evenSum + i else oddSum = oddSum + 2 * i end
end
assert(counters[1]:value() == evenSum and counters[2]:value() == oddSum)
assert(toggle:value() == (n % 2 == 0))
print("Counter: " .. counters[1]:value() .. ", DoublingCounter: " .. counters[2]:value())
