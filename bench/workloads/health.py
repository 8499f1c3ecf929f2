# JOlden health, the same algorithm, arguments and output as workloads/jolden/health.kith:
# LEVELS TIME SEED (default 5 300 1); Java's 32-bit float arithmetic emulated (fround after
# every float operation, Java's (int) cast, Float.toString for the printed averages).
import math
import struct
import sys

from java_arith import java_d2i, java_div, java_int


def fround(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def float_to_string(x):
    """Float.toString for 1e-3 <= |x| < 1e7: the shortest decimal that rounds to x."""
    if x == 0.0:
        return "0.0"
    e10 = math.floor(math.log10(abs(x)))
    if 10.0 ** e10 > abs(x):
        e10 -= 1
    if 10.0 ** (e10 + 1) <= abs(x):
        e10 += 1
    for p in range(1, 10):
        k = p - 1 - e10
        if k >= 0:
            ten = 10.0 ** k
            candidate = math.floor(x * ten + 0.5) / ten
        else:
            ten = 10.0 ** -k
            candidate = math.floor(x / ten + 0.5) * ten
        if fround(candidate) == x:
            return repr(candidate)
    return repr(x)


class Patient:
    __slots__ = ("hospitalsVisited", "time", "timeLeft", "home")

    def __init__(self, v):
        self.home = v
        self.hospitalsVisited = 0
        self.time = 0
        self.timeLeft = 0


class Results:
    def __init__(self):
        self.totalPatients = 0.0
        self.totalTime = 0.0
        self.totalHospitals = 0.0


class ListNode:
    __slots__ = ("next", "object")

    def __init__(self, o):
        self.object = o
        self.next = None


class HealthList:
    __slots__ = ("head", "tail")

    def __init__(self):
        self.head = None
        self.tail = None

    def add(self, p):
        node = ListNode(p)
        if self.head is None:
            self.head = node
        else:
            self.tail.next = node
        self.tail = node

    def delete(self, o):
        if self.head is None:
            return
        if self.tail.object is o:
            self.tail = None
        if self.head.object is o:
            self.head = self.head.next
            return
        p = self.head
        ln = self.head.next
        while ln is not None:
            if ln.object is o:
                p.next = ln.next
                return
            p = ln
            ln = ln.next

    def elements(self):
        # ListEnumerator: reads curNode.next after the element is handed out, as Java's
        cur = self.head
        while cur is not None:
            o = cur.object
            cur = cur.next
            yield o


class Hospital:
    def __init__(self, level):
        self.personnel = 1 << (level - 1)
        self.freePersonnel = self.personnel
        self.numWaitingPatients = 0
        self.waiting = HealthList()
        self.assess = HealthList()
        self.inside = HealthList()
        self.up = HealthList()

    def putInHospital(self, p):
        p.hospitalsVisited += 1
        if self.freePersonnel > 0:
            self.freePersonnel -= 1
            self.assess.add(p)
            p.timeLeft = 3
            p.time += 3
        else:
            self.waiting.add(p)

    def checkPatientsInside(self, returned):
        for p in self.inside.elements():
            p.timeLeft -= 1
            if p.timeLeft == 0:
                self.freePersonnel += 1
                self.inside.delete(p)
                returned.add(p)

    def checkPatientsAssess(self, v):
        up = HealthList()
        for p in self.assess.elements():
            p.timeLeft -= 1
            if p.timeLeft == 0:
                if v.staysHere():
                    self.assess.delete(p)
                    self.inside.add(p)
                    p.timeLeft = 10
                    p.time += 10
                else:
                    self.freePersonnel += 1
                    self.assess.delete(p)
                    up.add(p)
        return up

    def checkPatientsWaiting(self):
        for p in self.waiting.elements():
            if self.freePersonnel > 0:
                self.freePersonnel -= 1
                p.timeLeft = 3
                p.time += 3
                self.waiting.delete(p)
                self.assess.add(p)
            else:
                p.time += 1


IA, IM, IQ, IR, MASK = 16807, 2147483648.0, 127773, 2836, 123459876
AM = fround(1.0 / IM)


def myRand(idum):
    idum ^= MASK
    k = java_div(idum, IQ)
    idum = java_int(IA * (idum - k * IQ) - IR * k)
    idum ^= MASK
    if idum < 0:
        idum = java_d2i(fround(fround(float(idum)) + IM))
    return fround(AM * fround(float(idum)))


class Village:
    def __init__(self, level, l, p, s):
        self.back = p
        self.label = l
        self.forward = [None] * 4
        self.seed = java_int(l * (IQ + s))
        self.hospital = Hospital(level)
        self.returned = HealthList()

    def staysHere(self):
        rand = myRand(self.seed)
        self.seed = java_d2i(fround(rand * IM))
        return rand > 0.1 or self.back is None

    def simulate(self):
        val = [None] * 4
        for i in range(3, -1, -1):
            v = self.forward[i]
            if v is not None:
                val[i] = v.simulate()
        for i in range(3, -1, -1):
            l = val[i]
            if l is not None:
                for p in l.elements():
                    self.hospital.putInHospital(p)
        self.hospital.checkPatientsInside(self.returned)
        up = self.hospital.checkPatientsAssess(self)
        self.hospital.checkPatientsWaiting()
        p = self.generatePatient()
        if p is not None:
            self.hospital.putInHospital(p)
        return up

    def getResults(self):
        fval = [None] * 4
        for i in range(3, -1, -1):
            v = self.forward[i]
            if v is not None:
                fval[i] = v.getResults()
        r = Results()
        for i in range(3, -1, -1):
            if fval[i] is not None:
                r.totalHospitals = fround(r.totalHospitals + fval[i].totalHospitals)
                r.totalPatients = fround(r.totalPatients + fval[i].totalPatients)
                r.totalTime = fround(r.totalTime + fval[i].totalTime)
        for p in self.returned.elements():
            r.totalHospitals = fround(r.totalHospitals + fround(float(p.hospitalsVisited)))
            r.totalTime = fround(r.totalTime + fround(float(p.time)))
            r.totalPatients = fround(r.totalPatients + 1.0)
        return r

    def generatePatient(self):
        rand = myRand(self.seed)
        self.seed = java_d2i(fround(rand * IM))
        return Patient(self) if rand > 0.666 else None


def createVillage(level, label, back, seed):
    if level == 0:
        return None
    village = Village(level, label, back, seed)
    for i in range(3, -1, -1):
        village.forward[i] = createVillage(level - 1, (label * 4) + i + 1, village, seed)
    return village


EXPECTED = {(5, 300, 1): ("10293.0", "95.11804", "1.0732536"), (5, 200, 1): ("6738.0", "65.4114", "1.071683"),
            (5, 500, 1): ("17408.0", "154.42181", "1.0724955"), (4, 100, 1): ("786.0", "35.749363", "1.06743"),
            (3, 50, 1): ("80.0", "20.775", "1.025"), (6, 500, 1): ("69993.0", "154.25249", "1.0755789")}


def main():
    maxLevel, maxTime, seed = 5, 300, 1
    if len(sys.argv) > 3:
        maxLevel, maxTime, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    top = createVillage(maxLevel, 0, None, seed)
    for _ in range(maxTime):
        top.simulate()
    r = top.getResults()
    people = float_to_string(r.totalPatients)
    stay = float_to_string(fround(r.totalTime / r.totalPatients))
    hospitals = float_to_string(fround(r.totalHospitals / r.totalPatients))
    print(f"# of people treated:            {people} people")
    print(f"Average length of stay:         {stay} time units")
    print(f"Average # of hospitals visited: {hospitals}")
    print("Done!")
    line = f"health -l {maxLevel} -t {maxTime} -s {seed}: {people} people, {stay} time units, {hospitals} hospitals"
    x = EXPECTED.get((maxLevel, maxTime, seed))
    if x is None:
        print(f"check skipped (no expected values): {line}")
    elif (people, stay, hospitals) != x:
        print(f"check FAILED: {line}; expected {x[0]}, {x[1]}, {x[2]}")
        sys.exit(1)
    else:
        print(f"check passed: {line}")


main()
