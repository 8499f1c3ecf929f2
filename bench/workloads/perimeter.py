# JOlden perimeter, the same algorithm, arguments and output as
# workloads/jolden/perimeter.kith: LEVELS [ITERATIONS] (default 16 1); a quadtree image,
# Samet's perimeter through parent links; Java's 32-bit int arithmetic where it wraps.
import sys


def i32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= (1 << 31) else x


NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
gcmp = 4194304
lcmp = 1048576


class NorthWest:
    def adjacent(self, d): return d == NORTH or d == WEST
    def reflect(self, d): return cNorthEast if d == WEST or d == EAST else cSouthWest
    def child(self, node): return node.nw


class NorthEast:
    def adjacent(self, d): return d == NORTH or d == EAST
    def reflect(self, d): return cNorthWest if d == WEST or d == EAST else cSouthEast
    def child(self, node): return node.ne


class SouthWest:
    def adjacent(self, d): return d == SOUTH or d == WEST
    def reflect(self, d): return cSouthEast if d == WEST or d == EAST else cNorthWest
    def child(self, node): return node.sw


class SouthEast:
    def adjacent(self, d): return d == SOUTH or d == EAST
    def reflect(self, d): return cSouthWest if d == WEST or d == EAST else cNorthEast
    def child(self, node): return node.se


cNorthWest, cNorthEast, cSouthWest, cSouthEast = NorthWest(), NorthEast(), SouthWest(), SouthEast()


class QuadTreeNode:
    __slots__ = ("quadrant", "nw", "ne", "sw", "se", "parent")
    white = False
    grey = False

    def __init__(self, quad, parent):
        self.quadrant = quad
        self.nw = self.ne = self.sw = self.se = None
        self.parent = parent

    def setChildren(self, nw, ne, sw, se):
        self.nw, self.ne, self.sw, self.se = nw, ne, sw, se

    def gtEqualAdjNeighbor(self, d):
        if self.parent is not None and self.quadrant.adjacent(d):
            q = self.parent.gtEqualAdjNeighbor(d)
        else:
            q = self.parent
        if q is not None and q.grey:
            return self.quadrant.reflect(d).child(q)
        return q

    def countTree(self):
        if self.nw is None and self.ne is None and self.sw is None and self.se is None:
            return 1
        return self.sw.countTree() + self.se.countTree() + self.ne.countTree() + self.nw.countTree()


class BlackNode(QuadTreeNode):
    __slots__ = ()

    def perimeter(self, size):
        retval = 0
        for d, q1, q2 in ((NORTH, cSouthEast, cSouthWest), (EAST, cSouthWest, cNorthWest),
                          (SOUTH, cNorthWest, cNorthEast), (WEST, cNorthEast, cSouthEast)):
            neighbor = self.gtEqualAdjNeighbor(d)
            if neighbor is None or neighbor.white:
                retval += size
            elif neighbor.grey:
                retval += neighbor.sumAdjacent(q1, q2, size)
        return retval

    def sumAdjacent(self, quad1, quad2, size):
        return 0


class WhiteNode(QuadTreeNode):
    __slots__ = ()
    white = True

    def perimeter(self, size):
        return 0

    def sumAdjacent(self, quad1, quad2, size):
        return size


class GreyNode(QuadTreeNode):
    __slots__ = ()
    grey = True

    def perimeter(self, size):
        size = size // 2
        return self.sw.perimeter(size) + self.se.perimeter(size) + self.ne.perimeter(size) + \
            self.nw.perimeter(size)

    def sumAdjacent(self, quad1, quad2, size):
        child1 = quad1.child(self)
        child2 = quad2.child(self)
        size = size // 2
        return child1.sumAdjacent(quad1, quad2, size) + child2.sumAdjacent(quad1, quad2, size)


def createTree(size, center_x, center_y, parent, quadrant, level):
    intersect = checkIntersect(center_x, center_y, size)
    size = size // 2
    if intersect == 0 and size < 512:
        node = WhiteNode(quadrant, parent)
    elif intersect == 2:
        node = BlackNode(quadrant, parent)
    elif level == 0:
        node = BlackNode(quadrant, parent)
    else:
        node = GreyNode(quadrant, parent)
        sw = createTree(size, center_x - size, center_y - size, node, cSouthWest, level - 1)
        se = createTree(size, center_x + size, center_y - size, node, cSouthEast, level - 1)
        ne = createTree(size, center_x + size, center_y + size, node, cNorthEast, level - 1)
        nw = createTree(size, center_x - size, center_y + size, node, cNorthWest, level - 1)
        node.setChildren(nw, ne, sw, se)
    return node


def checkOutside(x, y):
    euclid = i32(x * x + y * y)
    if euclid > gcmp:
        return 1
    if euclid < lcmp:
        return -1
    return 0


def checkIntersect(cx, cy, size):
    a = checkOutside(cx + size, cy + size)
    b = checkOutside(cx + size, cy - size)
    c = checkOutside(cx - size, cy - size)
    d = checkOutside(cx - size, cy + size)
    if a == 0 and b == 0 and c == 0 and d == 0:
        return 2
    s = a + b + c + d
    if s == 4 or s == -4:
        return 0
    return 1


EXPECTED = {16: (111872, 339688), 12: (27968, 83728), 13: (39552, 118528), 14: (55936, 168064),
            15: (79104, 238048), 17: (1075600, 4728748), 18: (8445200, 37766632)}


def main():
    global gcmp, lcmp
    levels = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    size = 1 << levels
    msize = 1 << (levels - 1)
    gcmp = i32(size * 1024)
    lcmp = i32(msize * 1024)
    leaves = perm = None
    for i in range(iterations):
        tree = createTree(msize, 0, 0, None, cSouthEast, levels)
        tl = tree.countTree()
        tp = tree.perimeter(size)
        if i > 0 and (tl != leaves or tp != perm):
            print(f"check FAILED: iteration {i} differs from the first")
            sys.exit(1)
        leaves, perm = tl, tp
    print(f"Perimeter is {perm}")
    print(f"Number of leaves {leaves}")
    print("Done!")
    if levels in EXPECTED:
        ep, el = EXPECTED[levels]
        if perm != ep or leaves != el:
            print(f"check FAILED: perimeter levels {levels}: perimeter {perm}, leaves {leaves}; expected {ep}, {el}")
            sys.exit(1)
        print(f"check passed: perimeter levels {levels} perimeter {perm} leaves {leaves}")
    else:
        print(f"check skipped: no expected values for levels {levels}")


sys.setrecursionlimit(10000)
main()
