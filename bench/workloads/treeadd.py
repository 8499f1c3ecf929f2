# JOlden treeadd, the same algorithm, arguments and output as workloads/jolden/treeadd.kith:
# build a complete binary tree of LEVELS levels (default 22) whose nodes hold 1, sum it
# depth-first; ITERATIONS (default 1) repeats both. Exits 1 if a sum is not 2^LEVELS - 1.
import sys


class TreeNode:
    __slots__ = ("value", "left", "right")

    def __init__(self, levels):
        self.value = 1
        if levels <= 1:
            if levels <= 0:
                raise RuntimeError("Number of levels must be positive no.")
            self.left = None
            self.right = None
        else:
            self.left = TreeNode(levels - 1)
            self.right = TreeNode(levels - 1)

    def addTree(self):
        total = self.value
        if self.left is not None:
            total += self.left.addTree()
        if self.right is not None:
            total += self.right.addTree()
        return total


def main():
    levels = int(sys.argv[1]) if len(sys.argv) > 1 else 22
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    result = None
    for _ in range(iterations):
        root = TreeNode(levels)
        result = root.addTree()
        if result != (1 << levels) - 1:
            print(f"check FAILED: treeadd levels {levels} sum {result}, expected {(1 << levels) - 1}")
            sys.exit(1)
    print(f"Received results of {result}")
    print("Done!")
    print(f"check passed: treeadd levels {levels} sum {result}")


main()
