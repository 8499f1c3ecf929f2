# Benchmarks Game binary-trees, the same algorithm as examples/binary_trees.kith.
import sys

class Node:
    __slots__ = ("left", "right")
    def __init__(self, left, right):
        self.left = left
        self.right = right
    def check(self):
        if self.left is None:
            return 1
        return 1 + self.left.check() + self.right.check()

def bottom_up(depth):
    if depth == 0:
        return Node(None, None)
    return Node(bottom_up(depth - 1), bottom_up(depth - 1))

max_depth = int(sys.argv[1]) if len(sys.argv) > 1 else 16
min_depth = 4
if min_depth + 2 > max_depth:
    max_depth = min_depth + 2
stretch = max_depth + 1
print(f"stretch tree of depth {stretch}\t check: {bottom_up(stretch).check()}")
long_lived = bottom_up(max_depth)
for depth in range(min_depth, max_depth + 1, 2):
    iterations = 1 << (max_depth - depth + min_depth)
    check = 0
    for _ in range(iterations):
        check += bottom_up(depth).check()
    print(f"{iterations}\t trees of depth {depth}\t check: {check}")
print(f"long lived tree of depth {max_depth}\t check: {long_lived.check()}")
