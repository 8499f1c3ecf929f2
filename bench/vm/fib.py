# Recursive Fibonacci, the same algorithm as examples/fib.kith.
import sys

def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
print(f"fib({n}) = {fib(n)}")
