# JOlden mst, the same algorithm, arguments and output as workloads/jolden/mst.kith:
# VERTICES [REPEAT] (default 1024 1); per-vertex chained hash tables, Bentley's MST; the
# identity hash codes come from a java.util.Random seeded with 0, as in the Kith port.
import sys

from java_arith import java_div, java_int


class JavaRandom:
    MULT = 0x5DEECE66D
    MASK = (1 << 48) - 1

    def __init__(self, seed):
        self.seed = (seed ^ self.MULT) & self.MASK

    def nextInt(self):
        self.seed = (self.seed * self.MULT + 0xB) & self.MASK
        return java_int(self.seed >> 16)


identityHashes = JavaRandom(0)


class BlueReturn:
    __slots__ = ("vert", "dist")

    def __init__(self):
        self.vert = None
        self.dist = 0


class Vertex:
    __slots__ = ("mindist", "next", "neighbors", "hashCode")

    def __init__(self, n, numvert):
        self.mindist = 9999999
        self.next = n
        self.neighbors = Hashtable(numvert // 4)
        self.hashCode = identityHashes.nextInt() & 0x7FFFFFFF


class HashEntry:
    __slots__ = ("key", "entry", "next")

    def __init__(self, key, entry, next):
        self.key = key
        self.entry = entry
        self.next = next


class Hashtable:
    __slots__ = ("array", "size")

    def __init__(self, sz):
        self.size = sz
        self.array = [None] * sz

    def hashMap(self, key):
        return (key.hashCode >> 3) % self.size

    def get(self, key):
        ent = self.array[self.hashMap(key)]
        while ent is not None and ent.key is not key:
            ent = ent.next
        return ent.entry if ent is not None else None

    def put(self, key, value):
        j = self.hashMap(key)
        self.array[j] = HashEntry(key, value, self.array[j])


CONST_m1 = 10000
CONST_b = 31415821
RANGE = 2048


def mult(p, q):
    p1, p0 = java_div(p, CONST_m1), p - java_div(p, CONST_m1) * CONST_m1
    q1, q0 = java_div(q, CONST_m1), q - java_div(q, CONST_m1) * CONST_m1
    t = p0 * q1 + p1 * q0
    return (t - java_div(t, CONST_m1) * CONST_m1) * CONST_m1 + p0 * q0


def computeDist(i, j, numvert):
    less, gt = (i, j) if i < j else (j, i)
    r = mult(less * numvert + gt, CONST_b) + 1
    return (r - java_div(r, RANGE) * RANGE) + 1


class Graph:
    def __init__(self, numvert):
        self.nodes = [None] * numvert
        v = None
        for i in range(numvert - 1, -1, -1):
            v = self.nodes[i] = Vertex(v, numvert)
        self.addEdges(numvert)

    def firstNode(self):
        return self.nodes[0]

    def addEdges(self, numvert):
        count1 = 0
        tmp = self.nodes[0]
        while tmp is not None:
            hash = tmp.neighbors
            for i in range(numvert):
                if i != count1:
                    hash.put(self.nodes[i], computeDist(i, count1, numvert))
            count1 += 1
            tmp = tmp.next


MyVertexList = None


def BlueRule(inserted, vlist):
    retval = BlueReturn()
    if vlist is None:
        retval.dist = 999999
        return retval
    prev = vlist
    retval.vert = vlist
    retval.dist = vlist.mindist
    o = vlist.neighbors.get(inserted)
    if o is not None:
        if o < retval.dist:
            vlist.mindist = o
            retval.dist = o
    else:
        print("Not found")
    tmp = vlist.next
    while tmp is not None:
        if tmp is inserted:
            prev.next = tmp.next
        else:
            dist2 = tmp.mindist
            o = tmp.neighbors.get(inserted)
            if o is not None:
                if o < dist2:
                    tmp.mindist = o
                    dist2 = o
            else:
                print("Not found")
            if dist2 < retval.dist:
                retval.vert = tmp
                retval.dist = dist2
        prev = tmp
        tmp = tmp.next
    return retval


def doAllBlueRule(inserted):
    global MyVertexList
    if inserted is MyVertexList:
        MyVertexList = MyVertexList.next
    return BlueRule(inserted, MyVertexList)


def computeMST(graph, numvert):
    global MyVertexList
    cost = 0
    inserted = graph.firstNode()
    MyVertexList = inserted.next
    numvert -= 1
    while numvert != 0:
        br = doAllBlueRule(inserted)
        inserted = br.vert
        numvert -= 1
        cost += br.dist
    return cost


EXPECTED = {1024: 12121, 64: 2131, 100: 2166, 128: 4118, 256: 8293, 500: 3183, 512: 10973,
            1000: 3793, 2000: 5209}


def main():
    vertices = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    dist = None
    for r in range(repeat):
        graph = Graph(vertices)
        d = computeMST(graph, vertices)
        if r > 0 and d != dist:
            print(f"check FAILED: repetition {r} differs from the first")
            sys.exit(1)
        dist = d
    print(f"MST has cost {dist}")
    print("Done!")
    if vertices in EXPECTED:
        if dist != EXPECTED[vertices]:
            print(f"check FAILED: mst -v {vertices} cost {dist}, expected {EXPECTED[vertices]}")
            sys.exit(1)
        print(f"check passed: mst -v {vertices} cost {dist}")
    else:
        print(f"check skipped (no expected cost): mst -v {vertices} cost {dist}")


main()
