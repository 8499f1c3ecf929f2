# JOlden em3d, the same algorithm, arguments and output as workloads/jolden/em3d.kith:
# NODES DEGREE [ITERATIONS [REPEAT]] (default 4000 100 1 1); java.util.Random emulated
# exactly; the checksum (value and fromCount sums) is compared with the Java original's.
import sys

from java_arith import java_int


class JavaRandom:
    MULT = 0x5DEECE66D
    MASK = (1 << 48) - 1

    def __init__(self, seed):
        self.seed = (seed ^ self.MULT) & self.MASK

    def next(self, bits):
        self.seed = (self.seed * self.MULT + 0xB) & self.MASK
        return java_int(self.seed >> (48 - bits))

    def nextInt(self):
        return self.next(32)

    def nextDouble(self):
        return float((self.next(26) << 27) + self.next(27)) * 1.1102230246251565e-16


rand = None


class Node:
    __slots__ = ("value", "next", "toNodes", "fromNodes", "coeffs", "fromCount", "fromLength")

    def __init__(self, degree):
        self.value = rand.nextDouble()
        self.toNodes = [None] * degree
        self.next = None
        self.fromNodes = None
        self.coeffs = None
        self.fromCount = 0
        self.fromLength = 0

    def makeUniqueNeighbors(self, nodeTable):
        toNodes = self.toNodes
        for filled in range(len(toNodes)):
            while True:
                index = rand.nextInt()
                if index < 0:
                    index = java_int(-index)
                index = index % len(nodeTable)   # index >= 0 here, as in Java
                otherNode = nodeTable[index]
                k = 0
                while k < filled:
                    if otherNode is toNodes[filled]:   # the Java original's comparison
                        break
                    k += 1
                if not k < filled:
                    break
            toNodes[filled] = otherNode
            otherNode.fromCount += 1

    def makeFromNodes(self):
        self.fromNodes = [None] * self.fromCount
        self.coeffs = [0.0] * self.fromCount

    def updateFromNodes(self):
        for otherNode in self.toNodes:
            count = otherNode.fromLength
            otherNode.fromLength = count + 1
            otherNode.fromNodes[count] = self
            otherNode.coeffs[count] = rand.nextDouble()

    def computeNewValue(self):
        for i in range(self.fromCount):
            self.value = self.value - self.coeffs[i] * self.fromNodes[i].value

    def elements(self):
        n = self
        while n is not None:
            yield n
            n = n.next


def fillTable(size, degree):
    table = [None] * size
    prevNode = Node(degree)
    table[0] = prevNode
    for i in range(1, size):
        curNode = Node(degree)
        table[i] = curNode
        prevNode.next = curNode
        prevNode = curNode
    return table


class BiGraph:
    def __init__(self, e, h):
        self.eNodes = e
        self.hNodes = h

    def compute(self):
        for n in self.eNodes.elements():
            n.computeNewValue()
        for n in self.hNodes.elements():
            n.computeNewValue()


def createBiGraph(numNodes, numDegree):
    global rand
    rand = JavaRandom(783)
    hTable = fillTable(numNodes, numDegree)
    eTable = fillTable(numNodes, numDegree)
    for n in hTable[0].elements():
        n.makeUniqueNeighbors(eTable)
    for n in eTable[0].elements():
        n.makeUniqueNeighbors(hTable)
    for n in hTable[0].elements():
        n.makeFromNodes()
    for n in eTable[0].elements():
        n.makeFromNodes()
    for n in hTable[0].elements():
        n.updateFromNodes()
    for n in eTable[0].elements():
        n.updateFromNodes()
    return BiGraph(eTable[0], hTable[0])


def checksum(graph):
    valueSum = 0.0
    fromSum = 0
    for n in graph.eNodes.elements():
        valueSum += n.value
        fromSum += n.fromCount
    for n in graph.hNodes.elements():
        valueSum += n.value
        fromSum += n.fromCount
    return valueSum, fromSum


EXPECTED = [(4000, 100, 1, 4835909.3992991380, 800000), (100, 10, 1, 921.65972546509170, 2000),
            (1000, 50, 1, 287810.39175342750, 100000), (2000, 100, 1, 2420444.2035519030, 400000)]


def main():
    numNodes, numDegree, numIter, repeat = 4000, 100, 1, 1
    if len(sys.argv) > 2:
        numNodes, numDegree = int(sys.argv[1]), int(sys.argv[2])
    if len(sys.argv) > 3:
        numIter = int(sys.argv[3])
    if len(sys.argv) > 4:
        repeat = int(sys.argv[4])
    sums = None
    for r in range(repeat):
        graph = createBiGraph(numNodes, numDegree)
        for _ in range(numIter):
            graph.compute()
        these = checksum(graph)
        if r > 0 and these != sums:
            print(f"check FAILED: repetition {r} differs from the first")
            sys.exit(1)
        sums = these
    print("Done!")
    valueSum, fromSum = sums
    line = f"em3d -n {numNodes} -d {numDegree} -i {numIter}: value sum {valueSum!r}, fromCount sum {fromSum}"
    for x in EXPECTED:
        if x[0] == numNodes and x[1] == numDegree and x[2] == numIter:
            if valueSum != x[3] or fromSum != x[4]:
                print(f"check FAILED: {line}; expected {x[3]!r}, {x[4]}")
                sys.exit(1)
            print(f"check passed: {line}")
            return
    print(f"check skipped (no expected values): {line}")


main()
