"""study/ as a package: its modules import each other without a cycle (every import
counted, those inside functions too, which would hide one), none by a computed name but
the entry point's command table, and that table names modules with a main(argv).
Read with ast: nothing is imported. CTest: study.package."""

import ast
import os
import subprocess
import sys
import unittest

STUDY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "study")
ENTRY = "__main__"  # imports its commands' modules by name, and nothing imports it but:


def modules(folder=STUDY):
    """{module name: parsed source} of the package's .py files."""
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                out[name[:-3]] = ast.parse(f.read(), name)
    return out


def imported(tree, names):
    """The package's modules a module imports, wherever in it the import stands:
    `from . import x`, `from .x import y`, `from study.x import y`, `import study.x`, and
    `import x` (a script's folder is first on sys.path, so that too is the package's)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".") if node.module else []
            if node.level == 0 and parts[:1] == ["study"]:
                parts = parts[1:]
            elif node.level == 0:
                parts = parts[:1] if parts[:1] and parts[0] in names else []
                found.update(parts)
                continue
            found.update(parts[:1] if parts else [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                found.update(parts[1:2] if parts[0] == "study" else parts[:1])
    return {n for n in found if n in names}


def graph(trees):
    return {name: sorted(imported(tree, trees) - {name}) for name, tree in trees.items()}


def cycles(edges):
    """The strongly connected components of more than one module (or a module importing
    itself), each sorted: every import cycle is inside one."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges[v]:
                found.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def dynamic_imports(tree):
    """Lines of __import__(...) and importlib.import_module(...) calls."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == "__import__") or \
                    (isinstance(f, ast.Attribute) and f.attr == "import_module"):
                lines.append(node.lineno)
    return lines


class Package(unittest.TestCase):
    def setUp(self):
        self.trees = modules()

    def test_no_import_cycle(self):
        found = cycles(graph(self.trees))
        self.assertEqual(found, [], "import cycles in study/ (a module both imports and is imported by another, "
                                    "maybe inside a function): " + "; ".join(" <-> ".join(c) for c in found))

    def test_no_import_by_computed_name_but_the_entry_points(self):
        hidden = {name: dynamic_imports(tree) for name, tree in self.trees.items() if name != ENTRY}
        self.assertEqual({k: v for k, v in hidden.items() if v}, {},
                         "a module imported by a computed name hides an import from this test")

    def test_nothing_imports_the_entry_point(self):
        edges = graph(self.trees)
        self.assertEqual([m for m, deps in edges.items() if ENTRY in deps], [])

    def test_every_command_names_a_module_with_main(self):
        commands = None
        for node in ast.walk(self.trees[ENTRY]):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "COMMANDS"
                                                    for t in node.targets):
                commands = ast.literal_eval(node.value)
        self.assertTrue(commands, "study/__main__.py has its COMMANDS table")
        for command, (module, _) in commands.items():
            self.assertIn(module, self.trees, command)
            mains = [n for n in self.trees[module].body if isinstance(n, ast.FunctionDef) and n.name == "main"]
            self.assertTrue(mains, f"{command}: study/{module}.py has a main(argv)")

    def test_modules_that_were_commands_say_where_their_command_went(self):
        # Run as a file (python3 study/plot_study.py) they died in a relative import's
        # traceback; with -m (python3 -m study.prose) they did nothing and exited 0.
        root = os.path.dirname(STUDY)
        moved = [name for name, tree in self.trees.items() if name != ENTRY and any(
            isinstance(n, ast.If) and "__main__" in ast.unparse(n.test) for n in tree.body)]
        self.assertGreaterEqual(len(moved), 10)
        for name in moved:
            for argv, cwd in (([os.path.join(STUDY, f"{name}.py")], "/"), (["-m", f"study.{name}"], root)):
                with self.subTest(module=name, how=argv[0]):
                    p = subprocess.run([sys.executable] + argv + ["x"], cwd=cwd, capture_output=True, text=True,
                                       timeout=60)
                    self.assertEqual(p.returncode, 64, p.stderr)
                    self.assertIn("run `python3 -m study ", p.stderr)
                    self.assertNotIn("Traceback", p.stderr)

    def test_the_check_finds_a_cycle(self):
        """The test's own parts on a made-up package: an import inside a function counts."""
        trees = {"a": ast.parse("from . import b\n"),
                 "b": ast.parse("def f():\n    from .c import x\n"),
                 "c": ast.parse("import study.a\n"),
                 "d": ast.parse("from .a import y\n")}
        self.assertEqual(cycles(graph(trees)), [["a", "b", "c"]])
        self.assertEqual(dynamic_imports(ast.parse("m = __import__('a')\nimportlib.import_module('.b', 'p')\n")),
                         [1, 2])

class ExitCodes(unittest.TestCase):
    """The study driver's exit codes are read from cli/exit_codes.h, the C++ tool's."""

    def test_read_from_the_header_the_tool_is_built_with(self):
        sys.path.insert(0, os.path.dirname(STUDY))
        from study import common
        header = os.path.join(os.path.dirname(STUDY), "cli", "exit_codes.h")
        with open(header) as f:
            names = [line.split("=")[0].split()[-1] for line in f if line.strip().startswith("inline constexpr int kExit")]
        codes = common.exit_codes(header)
        self.assertEqual(sorted(codes), sorted(names), "every kExit constant of the header is read")
        self.assertEqual((common.EXIT_USAGE, common.EXIT_MALFORMED, common.EXIT_MISSING, common.EXIT_SOFTWARE,
                          common.EXIT_UNAVAILABLE, common.EXIT_CANNOT_CREATE),
                         (codes["kExitUsage"], codes["kExitDataError"], codes["kExitNoInput"], codes["kExitSoftware"],
                          codes["kExitUnavailable"], codes["kExitCantCreate"]))

    def test_a_changed_header_changes_them(self):
        import tempfile
        sys.path.insert(0, os.path.dirname(STUDY))
        from study import common
        with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as f:
            f.write("inline constexpr int kExitUsage = 2;\ninline constexpr int kExitNoInput = 3;\n")
        try:
            self.assertEqual(common.exit_codes(f.name), {"kExitUsage": 2, "kExitNoInput": 3})
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
