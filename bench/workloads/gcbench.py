# GCBench (Ellis, Kovac; Boehm), the same algorithm, arguments and output as
# workloads/gcbench/gcbench.kith: STRETCH_DEPTH (default 18) scales the other sizes;
# PrintDiagnostics is left out; timings print as "took N msec" and "Completed in N ms.".
import sys
import time


class Node:
    __slots__ = ("left", "right", "i", "j")

    def __init__(self, l, r):
        self.left = l
        self.right = r
        self.i = 0
        self.j = 0


kStretchTreeDepth = int(sys.argv[1]) if len(sys.argv) > 1 else 18
kLongLivedTreeDepth = kStretchTreeDepth - 2
kArraySize = 500000 >> (18 - kStretchTreeDepth)
kMinTreeDepth = 4
kMaxTreeDepth = kStretchTreeDepth - 2


def TreeSize(i):
    return (1 << (i + 1)) - 1


def NumIters(i):
    return 2 * TreeSize(kStretchTreeDepth) // TreeSize(i)


def Populate(iDepth, thisNode):
    if iDepth <= 0:
        return
    iDepth -= 1
    thisNode.left = Node(None, None)
    thisNode.right = Node(None, None)
    Populate(iDepth, thisNode.left)
    Populate(iDepth, thisNode.right)


def MakeTree(iDepth):
    if iDepth <= 0:
        return Node(None, None)
    return Node(MakeTree(iDepth - 1), MakeTree(iDepth - 1))


def msec(seconds):
    return int(seconds * 1000)


def TimeConstruction(depth):
    iNumIters = NumIters(depth)
    print(f"Creating {iNumIters} trees of depth {depth}")
    tStart = time.monotonic()
    for _ in range(iNumIters):
        tempTree = Node(None, None)
        Populate(depth, tempTree)
        tempTree = None
    tFinish = time.monotonic()
    print(f"\tTop down construction took {msec(tFinish - tStart)} msec")
    tStart = time.monotonic()
    for _ in range(iNumIters):
        tempTree = MakeTree(depth)
        tempTree = None
    tFinish = time.monotonic()
    print(f"\tBottom up construction took {msec(tFinish - tStart)} msec")


def countNodes(node):
    if node is None:
        return 0
    return 1 + countNodes(node.left) + countNodes(node.right)


def main():
    print("Garbage Collector Test")
    print(f" Stretching memory with a binary tree of depth {kStretchTreeDepth}")
    tStart = time.monotonic()
    tempTree = MakeTree(kStretchTreeDepth)
    tempTree = None

    print(f" Creating a long-lived binary tree of depth {kLongLivedTreeDepth}")
    longLivedTree = Node(None, None)
    Populate(kLongLivedTreeDepth, longLivedTree)

    print(f" Creating a long-lived array of {kArraySize} doubles")
    array = [0.0] * kArraySize
    for i in range(kArraySize // 2):
        array[i] = 1.0 / i if i != 0 else float("inf")

    for d in range(kMinTreeDepth, kMaxTreeDepth + 1, 2):
        TimeConstruction(d)

    probe = min(1000, kArraySize // 2 - 1)
    if longLivedTree is None or array[probe] != 1.0 / probe:
        print("Failed")

    tFinish = time.monotonic()
    print(f"Completed in {msec(tFinish - tStart)} ms.")

    nodes = countNodes(longLivedTree)
    if nodes == TreeSize(kLongLivedTreeDepth) and array[probe] == 1.0 / probe:
        print(f"check passed: long-lived tree of depth {kLongLivedTreeDepth} has {nodes} nodes")
    else:
        print(f"check FAILED: long-lived tree of depth {kLongLivedTreeDepth} has {nodes} nodes, "
              f"expected {TreeSize(kLongLivedTreeDepth)}")
        sys.exit(1)


sys.setrecursionlimit(10000)
main()
