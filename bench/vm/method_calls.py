# Method calls, the same algorithm as examples/method_calls.kith.
import sys

class Counter:
    __slots__ = ("count",)
    def __init__(self):
        self.count = 0
    def step(self, k):
        self.count = self.count + k
        return self
    def value(self):
        return self.count

class DoublingCounter(Counter):
    __slots__ = ()
    def step(self, k):
        return super().step(2 * k)

class Toggle:
    __slots__ = ("state",)
    def __init__(self, state):
        self.state = state
    def activate(self):
        self.state = not self.state
        return self
    def value(self):
        return self.state

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
counters = [Counter(), DoublingCounter()]
toggle = Toggle(True)
for i in range(n):
    counters[i % 2].step(i)
    toggle.activate()
even_sum = sum(i for i in range(0, n, 2))
odd_sum = sum(2 * i for i in range(1, n, 2))
assert counters[0].value() == even_sum and counters[1].value() == odd_sum
assert toggle.value() == (n % 2 == 0)
print(f"Counter: {counters[0].value()}, DoublingCounter: {counters[1].value()}")
