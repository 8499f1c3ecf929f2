#!/usr/bin/env python3
"""Generates a valid Kith program from a seed: gen_program.py SEED > prog.kith

The program (LANGUAGE.md) is the same for the same seed, always terminates, and
prints a lot of its state, so that differential.py can run it on every heap
policy x collector, under --gc-stress and in small heaps, and compare outputs.
It mixes what the collectors and the rooting rule must get right: classes with
fields, methods, inheritance, super calls and toString() overrides; closures
sharing captured variables; arrays (nested, cyclic); List and Map; try/catch and
throw (script errors and runtime errors, also inside toString() and callbacks);
deep and cyclic structures (linked lists, trees, rings, arrays nested hundreds
deep); loops that make garbage; string building. Its live data stays small (a
256K heap holds it on every policy) and its output depends on nothing but the
program (no clock, no heap statistics, no hash values).

Sections are top-level functions with random parameters, random arithmetic, in
random order; each is called inside try/catch, so an unexpected error is printed
(the same everywhere) rather than ending the run.
"""
import random
import sys


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.out = []
        self.n = 0  # unique-name counter

    def name(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def emit(self, line=""):
        self.out.append(line)

    # --- expressions ---------------------------------------------------------
    def int_expr(self, vars_, depth=0):
        """An int-valued expression over int variables; never divides by zero."""
        r = self.r
        if depth > 2 or r.random() < 0.3:
            if vars_ and r.random() < 0.6:
                return r.choice(vars_)
            return str(r.choice([0, 1, 2, 3, 7, 10, 31, 100, 255, 1000, -1, -5, 65536, 123456789]))
        a = self.int_expr(vars_, depth + 1)
        b = self.int_expr(vars_, depth + 1)
        op = r.choice(["+", "-", "*", "+", "-", "&", "|", "^", "<<", ">>", ">>>", "/", "%", "max", "abs", "cond"])
        if op in ("/", "%"):
            return f"({a} {op} {r.choice([1, 2, 3, 7, -4, 16])})"
        if op in ("<<", ">>", ">>>"):
            return f"({a} {op} {r.randint(0, 70)})"
        if op == "max":
            return f"Math.max({a}, {b})"
        if op == "abs":
            return f"Math.abs({a} % 1000)"
        if op == "cond":
            return f"(({a} < {b}) and {a} or {b})"
        return f"({a} {op} {b})"

    def small(self, lo, hi):
        return self.r.randint(lo, hi)

    # --- classes -------------------------------------------------------------
    def classes(self):
        """A forest of classes; returns [(name, params, has_to_string)]."""
        r = self.r
        self.cls = []
        for _ in range(r.randint(2, 6)):
            parent = r.choice(self.cls) if self.cls and r.random() < 0.6 else None
            cname = self.name("C")
            own = [self.name("f") for _ in range(r.randint(1, 3))]
            params = (parent["params"] if parent else []) + own
            has_ts = r.random() < 0.7
            info = {"name": cname, "own": own, "params": params, "parent": parent, "ts": has_ts}
            ext = f" < {parent['name']}" if parent else ""
            self.emit(f"class {cname}{ext} {{")
            self.emit(f"  field {', '.join(own)}, link{cname};")
            args = ", ".join(f"p{i}" for i in range(len(params)))
            self.emit(f"  init({args}) {{")
            if parent:
                pargs = ", ".join(f"p{i}" for i in range(len(parent["params"])))
                self.emit(f"    super.init({pargs});")
            base = len(params) - len(own)
            for i, f in enumerate(own):
                self.emit(f"    this.{f} = p{base + i};")
            self.emit("  }")
            # sum(): the int fields (a field holds an int, a string, an array or an object).
            self.emit("  sum() {")
            self.emit("    let s = " + ("super.sum();" if parent else "0;"))
            for f in own:
                k = r.randint(1, 9)
                self.emit(f'    if (typeOf(this.{f}) == "int") s = s + this.{f} * {k};')
                self.emit(f'    else if (typeOf(this.{f}) == "string") s = s + this.{f}.length;')
                self.emit(f'    else if (typeOf(this.{f}) == "array") s = s + this.{f}.length * {k};')
            self.emit("    return s;")
            self.emit("  }")
            self.emit(f'  kind() {{ return "{cname}"; }}')
            self.emit(f"  bump(d) {{ ")
            for f in own:
                self.emit(f'    if (typeOf(this.{f}) == "int") this.{f} = this.{f} + d;')
            if parent:
                self.emit("    super.bump(d + 1);")
            self.emit("    return this;")
            self.emit("  }")
            if has_ts:
                # Scalars only (and a nested object's kind()), so cyclic links never recurse.
                parts = []
                for f in own:
                    parts.append(f'"{f}=" + self_show(this.{f})')
                body = ' + ", " + '.join(parts)
                sup = 'super.toString() + "/" + ' if parent and self.has_ts(parent) else ""
                self.emit(f'  toString() {{ return {sup}"{cname}(" + {body} + ")"; }}')
            self.emit("}")
            self.cls.append(info)
        self.emit("fn self_show(v) {")
        self.emit('  let t = typeOf(v);')
        self.emit('  if (t == "int" or t == "string" or t == "nil" or t == "bool" or t == "float") return str(v);')
        self.emit('  if (t == "array") return "array:" + v.length;')
        self.emit('  return "obj";')
        self.emit("}")
        self.emit("class Node { field val, next; init(v, n) { this.val = v; this.next = n; } }")
        self.emit("class Tree { field left, right, item; init(l, r, i) { this.left = l; this.right = r; this.item = i; }")
        self.emit("  check() { if (this.left == nil) return this.item; return this.item + this.left.check() - this.right.check(); } }")
        self.emit("class Oops < Error { field code; init(m, c) { super.init(m); this.code = c; } }")
        self.emit("class Thrower { field n; init(n) { this.n = n; }")
        self.emit('  toString() { if (this.n % 3 == 0) throw new Oops("thrower " + this.n, this.n); return "T" + this.n; } }')
        self.emit("class Junk { field a, b; init(a, b) { this.a = a; this.b = b; }")
        self.emit('  toString() { let t = [this.a, this.b, "junk"]; let s = ""; for (x in t) s = s + x; return s; } }')
        self.emit("let keep = new List();")
        self.emit("")

    def has_ts(self, c):
        while c:
            if c["ts"]:
                return True
            c = c["parent"]
        return False

    def value_expr(self, ivars):
        r = self.r
        k = r.random()
        if k < 0.45:
            return self.int_expr(ivars)
        if k < 0.65:
            return f'"s" + {self.int_expr(ivars)}'
        if k < 0.8:
            return f"[{self.int_expr(ivars)}, \"e\", nil]"
        if k < 0.9:
            return "nil"
        return f"{r.choice([0.5, 2.25, -1.0, 1e-05, 3.0e20])} * {self.small(1, 9)}"

    def new_expr(self, c, ivars):
        args = ", ".join(self.value_expr(ivars) for _ in c["params"])
        return f"new {c['name']}({args})"

    # --- sections ------------------------------------------------------------
    def sec_objects(self):
        r = self.r
        fname = self.name("objects")
        n = r.randint(3, 40)
        self.emit(f"fn {fname}() {{")
        self.emit(f"  let objs = new Array({n});")
        self.emit(f"  for (let i = 0; i < {n}; i = i + 1) {{")
        for j, c in enumerate(self.cls):
            kw = "if" if j == 0 else "else if"
            last = j == len(self.cls) - 1
            cond = "" if last and j > 0 else f"(i % {len(self.cls)} == {j}) "
            if last and j > 0:
                self.emit(f"    else objs[i] = {self.new_expr(c, ['i'])};")
            else:
                self.emit(f"    {kw} {cond}objs[i] = {self.new_expr(c, ['i'])};")
        self.emit("  }")
        # Links between objects: cycles on purpose.
        self.emit(f"  for (let i = 0; i < {n}; i = i + 1) {{")
        self.emit(f"    let o = objs[i];")
        for c in self.cls:
            self.emit(f'    if (typeOf(o) == "{c["name"]}") o.link{c["name"]} = objs[(i * {self.small(1, 7)} + {self.small(0, 5)}) % {n}];')
        self.emit("  }")
        rounds = r.randint(1, 4)
        self.emit(f"  for (let round = 0; round < {rounds}; round = round + 1) {{")
        self.emit("    let total = 0;")
        self.emit("    for (o in objs) {")
        self.emit(f"      o.bump({self.int_expr(['round'])} % 100);")
        self.emit("      total = total + o.sum();")
        self.emit("      keep.add(str(o));")
        self.emit("    }")
        self.emit('    print("objects", round, total);')
        self.emit("    if (keep.size() > 200) { while (keep.size() > 20) keep.removeLast(); }")
        self.emit("  }")
        self.emit(f"  for (let i = 0; i < {n}; i = i + {r.randint(1, 5)}) print(i, objs[i], objs[i].kind(), objs[i].sum());")
        if r.random() < 0.5:
            self.emit("  print(objs);")
        self.emit("  let bound = objs[0].sum;")
        self.emit('  print("bound", bound(), typeOf(bound));')
        self.emit("}")
        return fname

    def sec_closures(self):
        r = self.r
        fname = self.name("closures")
        n = r.randint(2, 30)
        self.emit(f"fn {fname}() {{")
        self.emit("  fn counter(start, step) { let n = start; return [fn () { n = n + step; return n; }, fn () { return n; }]; }")
        self.emit(f"  let cs = new List();")
        self.emit(f"  for (let i = 0; i < {n}; i = i + 1) cs.add(counter(i * {self.small(1, 9)}, {self.int_expr(['i'])} % 50));")
        self.emit(f"  let total = 0;")
        self.emit(f"  for (let k = 0; k < {r.randint(1, 20)}; k = k + 1) {{")
        self.emit("    cs.forEach(fn (c) { c[0](); total = total + c[1](); });")
        self.emit("  }")
        self.emit('  print("closures", total, cs.size());')
        self.emit("  let fs = [];")
        self.emit("  let shared = [];")
        self.emit(f"  for (x in [{', '.join(str(self.small(-50, 50)) for _ in range(r.randint(1, 8)))}]) {{")
        self.emit(f"    fs = [fn (y) {{ return x * y + {self.small(0, 9)}; }}, fs];")
        self.emit("  }")
        self.emit(f"  for (let i = 0; i < 5; i = i + 1) shared = [fn () {{ return i; }}, shared];")
        self.emit("  let acc = 0;")
        self.emit("  while (fs.length == 2) { acc = acc * 3 + fs[0](acc % 17); fs = fs[1]; }")
        self.emit("  while (shared.length == 2) { acc = acc + shared[0](); shared = shared[1]; }")
        self.emit('  print("chain", acc);')
        self.emit("  let compose = fn (f, g) { return fn (x) { return f(g(x)); }; };")
        self.emit(f"  let h = fn (x) {{ return {self.int_expr(['x'])}; }};")
        depth = r.randint(1, 30)
        self.emit(f"  for (let i = 0; i < {depth}; i = i + 1) h = compose(h, fn (x) {{ return x + i; }});")
        self.emit(f'  print("composed", h({self.small(0, 100)}));')
        self.emit("}")
        return fname

    def sec_arrays(self):
        r = self.r
        fname = self.name("arrays")
        n = r.randint(2, 60)
        self.emit(f"fn {fname}() {{")
        self.emit(f"  let a = new Array({n}, 0);")
        self.emit(f"  for (let i = 0; i < {n}; i = i + 1) a[i] = {self.int_expr(['i'])} % 1000;")
        self.emit("  // insertion sort")
        self.emit(f"  for (let i = 1; i < {n}; i = i + 1) {{ let v = a[i]; let j = i - 1;")
        self.emit("    while (j >= 0 and a[j] > v) { a[j + 1] = a[j]; j = j - 1; } a[j + 1] = v; }")
        self.emit("  print(a);")
        rows = r.randint(1, 12)
        self.emit(f"  let grid = new Array({rows});")
        self.emit(f"  for (let i = 0; i < {rows}; i = i + 1) {{ grid[i] = new Array({r.randint(1, 12)}, i); grid[i][0] = [i, \"row\"]; }}")
        self.emit("  print(grid);")
        self.emit("  let cyc = [1, nil, [2, nil]];")
        self.emit("  cyc[1] = cyc; cyc[2][1] = cyc;")
        self.emit(f"  let both = [cyc, cyc[2], grid[{rows - 1}]];")
        self.emit("  print(cyc, both);")
        depth = r.choice([3, 10, 50, 200, 999, 1001])
        self.emit(f"  let deep = [];")
        self.emit(f"  for (let i = 0; i < {depth}; i = i + 1) deep = [deep];")
        self.emit('  try { let s = str(deep); print("deep", s.length, s.substring(0, 12)); } catch (e) { print("deep error", e.message); }')
        self.emit("  let strs = new Array(10);")
        self.emit(f"  for (let i = 0; i < 10; i = i + 1) strs[i] = \"x\" + i * {self.small(1, 99)};")
        self.emit("  print(strs, strs.length, a.length);")
        self.emit("}")
        return fname

    def sec_collections(self):
        r = self.r
        fname = self.name("collections")
        n = r.randint(5, 150)
        self.emit(f"fn {fname}() {{")
        self.emit("  let m = new Map();")
        self.emit("  let l = new List();")
        self.emit(f"  for (let i = 0; i < {n}; i = i + 1) {{")
        self.emit(f"    let k = {self.int_expr(['i'])} % {r.randint(3, 60)};")
        self.emit('    if (i % 3 == 0) m.put("k" + k, [i, k]);')
        self.emit("    else if (i % 3 == 1) m.put(k, i);")
        self.emit("    else m.put(k * 1.0 + 0.5, \"v\" + i);")
        self.emit("    l.add(k);")
        self.emit(f"    if (i % {r.randint(2, 9)} == 0) m.remove(k);")
        self.emit(f"    if (i % {r.randint(4, 11)} == 0 and !l.isEmpty()) l.removeLast();")
        self.emit("  }")
        self.emit('  print("map", m.size(), l.size());')
        self.emit("  for (k in m.keys()) print(k, m.get(k), m.has(k));")
        self.emit("  let sum = 0;")
        self.emit("  l.forEach(fn (v) { sum = sum + v; });")
        self.emit("  print(\"list\", sum, l.toArray());")
        self.emit("  let objKeys = new Map();")
        self.emit(f"  let ks = new Array({r.randint(1, 20)});")
        self.emit("  for (let i = 0; i < ks.length; i = i + 1) { ks[i] = new Node(i, nil); objKeys.put(ks[i], i * i); }")
        self.emit("  let t = 0;")
        self.emit("  for (k in ks) t = t + objKeys.get(k);")
        self.emit("  print(\"objkeys\", t, objKeys.size(), objKeys.get(new Node(0, nil)));")
        self.emit("  let nested = new List();")
        self.emit(f"  for (let i = 0; i < {r.randint(1, 30)}; i = i + 1) {{ let inner = new List(); inner.add(i); inner.add(m); nested.add(inner); }}")
        self.emit("  print(\"nested\", nested.size(), nested.get(0).get(0), nested.get(nested.size() - 1).size());")
        self.emit("}")
        return fname

    def sec_exceptions(self):
        r = self.r
        fname = self.name("exceptions")
        self.emit(f"fn {fname}() {{")
        errors = [
            'let a = [1, 2]; a[{}];'.format(r.randint(2, 9)),
            "let x = nil; x.f;",
            "let x = 3; x();",
            "let x = 1 / 0;",
            'let x = "a" - 1;',
            "throw new Oops(\"mine\", 7);",
            'throw "plain string";',
            "throw [1, 2, new Node(1, nil)];",
            "str(new Thrower(3));",
            "print(new Thrower(6), 1);",
            "let q = new Node(1, 2); q.nope = 1;",
            "fn f(a) { return a; } f(1, 2);",
            "let l = new List(); l.get(5);",
            "let m = new Map(); m.nope();",
            'int("12x");',
            "new Thrower(9) + \"x\";",
        ]
        k = r.randint(3, 10)
        self.emit("  let caught = 0;")
        for _ in range(k):
            err = r.choice(errors)
            self.emit("  try {")
            if r.random() < 0.4:
                self.emit("    try { " + r.choice(errors) + " } catch (inner) { caught = caught + 1; print(\"inner\", inner); throw inner; }")
            else:
                self.emit("    " + err)
            self.emit("  } catch (e) {")
            self.emit('    caught = caught + 1;')
            self.emit('    if (typeOf(e) == "Oops" or typeOf(e) == "Error") print("caught", typeOf(e), e.message); else print("caught", typeOf(e), e);')
            self.emit("  }")
        # Errors inside callbacks, and through deep calls.
        self.emit("  let l = new List();")
        self.emit(f"  for (let i = 0; i < {r.randint(1, 20)}; i = i + 1) l.add(new Thrower(i + 1));")
        self.emit('  try { l.forEach(fn (t) { print("t", t); }); } catch (e) { print("forEach stopped", e.message); }')
        d = r.randint(1, 300)
        self.emit(f"  fn down(n) {{ if (n == 0) throw new Oops(\"bottom\", {d}); let junk = [n, \"j\" + n]; return down(n - 1); }}")
        self.emit(f'  try {{ down({d}); }} catch (e) {{ print("from depth", e.code, e.message); }}')
        self.emit(f'  try {{ print("ts", [new Thrower(1), new Thrower(2)], new Thrower({r.randint(1, 9)})); }} catch (e) {{ print("ts error", e.message); }}')
        self.emit('  print("caught total", caught);')
        self.emit("}")
        return fname

    def sec_strings(self):
        r = self.r
        fname = self.name("strings")
        n = r.randint(5, 200)
        self.emit(f"fn {fname}() {{")
        self.emit("  let sb = new StringBuilder();")
        self.emit('  let s = "";')
        self.emit(f"  for (let i = 0; i < {n}; i = i + 1) {{")
        self.emit(f"    sb.append(i % {r.randint(2, 20)}).append(\",\");")
        self.emit(f"    if (i % {r.randint(1, 9)} == 0) s = s + chr(97 + i % 26) + {self.int_expr(['i'])};")
        self.emit("  }")
        self.emit("  let t = sb.toString();")
        self.emit("  print(t.length, sb.length(), s.length, s);")
        self.emit("  let parts = t.split(\",\");")
        self.emit("  print(parts.length, parts[0], t.substring(0, 10), t.indexOf(\"3,\"), s.indexOf(\"zz\"));")
        self.emit("  let b = 0;")
        self.emit("  for (let i = 0; i < s.length; i = i + 1) b = (b * 31 + s.byteAt(i)) % 1000003;")
        self.emit('  print("bytes", b, s < t, s == s + "", "x" + 1.5 + nil + true + [1]);')
        self.emit("  let j = new Junk(1, 2);")
        self.emit(f"  for (let i = 0; i < {r.randint(1, 50)}; i = i + 1) {{ j = new Junk(j.a + i, str(j)); }}")
        self.emit("  print(j.a, str(j).length);")
        self.emit("}")
        return fname

    def sec_deep(self):
        r = self.r
        fname = self.name("deep")
        n = r.randint(10, 1000)
        depth = r.randint(2, 8)
        self.emit(f"fn {fname}() {{")
        self.emit("  let head = nil;")
        self.emit(f"  for (let i = 0; i < {n}; i = i + 1) head = new Node(i, head);")
        self.emit("  let s = 0; let p = head;")
        self.emit("  while (p != nil) { s = s + p.val; p = p.next; }")
        self.emit(f'  print("list", s);')
        self.emit(f"  fn make(d, i) {{ if (d == 0) return new Tree(nil, nil, i); return new Tree(make(d - 1, 2 * i - 1), make(d - 1, 2 * i), i); }}")
        self.emit(f"  let trees = new List();")
        self.emit(f"  for (let i = 0; i < {r.randint(1, 5)}; i = i + 1) {{ let t = make({depth}, i); trees.add(t); print(\"tree\", i, t.check()); }}")
        self.emit("  // a ring")
        ring = r.randint(1, 200)
        self.emit(f"  let first = new Node(0, nil); let last = first;")
        self.emit(f"  for (let i = 1; i < {ring}; i = i + 1) {{ let nn = new Node(i, nil); last.next = nn; last = nn; }}")
        self.emit("  last.next = first;")
        self.emit(f"  p = first; let t = 0;")
        self.emit(f"  for (let i = 0; i < {ring * 3}; i = i + 1) {{ t = t + p.val; p = p.next; }}")
        self.emit('  print("ring", t);')
        self.emit(f"  fn rec(k) {{ if (k == 0) return 0; let a = [k]; return a[0] + rec(k - 1); }}")
        self.emit(f'  print("rec", rec({r.randint(1, 800)}));')
        self.emit("  keep.add(trees.get(0));")
        self.emit("}")
        return fname

    def sec_churn(self):
        r = self.r
        fname = self.name("churn")
        n = r.randint(50, 800)
        self.emit(f"fn {fname}() {{")
        self.emit("  let survivors = new List();")
        self.emit("  let check = 0;")
        self.emit(f"  for (let i = 0; i < {n}; i = i + 1) {{")
        self.emit(f"    let a = new Array(i % {r.randint(1, 40)} + 1, i);")
        self.emit("    let s = \"g\" + i;")
        c = r.choice(self.cls)
        self.emit(f"    let o = {self.new_expr(c, ['i'])};")
        self.emit("    check = (check + a.length + s.length + o.sum()) % 1000000007;")
        self.emit(f"    if (i % {r.randint(5, 50)} == 0) survivors.add([a, s, o]);")
        self.emit(f"    if (survivors.size() > {r.randint(10, 60)}) survivors = new List();")
        if r.random() < 0.3:
            self.emit(f"    if (i % {r.randint(200, 1000)} == 0) System.gc();")
        self.emit("  }")
        self.emit('  print("churn", check, survivors.size());')
        self.emit("  for (s in survivors.toArray()) print(s[0].length, s[1], s[2].sum());")
        self.emit("}")
        return fname

    def program(self):
        r = self.r
        self.emit(f"// generated by tests/fuzz/gen_program.py")
        self.classes()
        kinds = [self.sec_objects, self.sec_closures, self.sec_arrays, self.sec_collections,
                 self.sec_exceptions, self.sec_strings, self.sec_deep, self.sec_churn]
        sections = [r.choice(kinds)() for _ in range(r.randint(4, 10))]
        self.emit("")
        for i, s in enumerate(sections):
            self.emit(f'try {{ {s}(); }} catch (e) {{ print("section {i} failed:", typeOf(e), e); }}')
        self.emit('print("kept", keep.size());')
        self.emit('print("done");')
        return "\n".join(self.out) + "\n"


def generate(seed):
    return Gen(seed).program()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: gen_program.py SEED")
    sys.stdout.write(generate(int(sys.argv[1])))
