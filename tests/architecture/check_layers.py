#!/usr/bin/env python3
"""The house drawn from the code: every #include of a module points down.

    check_layers.py SOURCE_DIR

Modules and what each may include (besides itself), lowest first:
    heap   -
    vm     heap
    gc     heap, vm  (not vm/vm.h: a collector sees the object space and a
                      root-enumeration callback, never the interpreter; not
                      vm/object.h: it learns objects through vm/object_scanning.h,
                      the VM's side of the binding; not vm/handle_table_space.h:
                      it collects a vm/collected_space.h, the space as a
                      collector sees it)
    stdlib heap, vm
    preload heap  (libkith_malloc.so: the policies as a program's malloc)
    cli    heap, vm, gc, stdlib, preload  (kith exec reads preload's variable names)
    bench  heap
Prints each include that runs the wrong way as FILE:LINE and exits 1; exits 0
when there is none, 2 on bad usage.
"""
import os
import re
import sys

ALLOWED = {
    "heap": set(),
    "vm": {"heap"},
    "gc": {"heap", "vm"},
    "stdlib": {"heap", "vm"},
    "preload": {"heap"},
    "cli": {"heap", "vm", "gc", "stdlib", "preload"},
    "bench": {"heap"},
}
# Files a module may not include although their module is below it, and why.
FORBIDDEN_FILES = {
    "gc": {
        "vm/vm.h": "a collector depends on the object space, not the VM",
        "vm/object.h": "a collector reads objects through vm/object_scanning.h, not their layouts",
        "vm/handle_table_space.h": "a collector sees the space through vm/collected_space.h, not the space itself",
    },
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"(([a-z_]+)/[^"]+)"')


def violations(root):
    for module, allowed in ALLOWED.items():
        base = os.path.join(root, module)
        for folder, _, files in os.walk(base):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target, target_module = m.group(1), m.group(2)
                        if target_module not in ALLOWED or target_module == module:
                            continue
                        if target_module not in allowed:
                            yield f"{os.path.relpath(path, root)}:{number}: {module} includes {target} ({target_module} is above {module})"
                        elif target in FORBIDDEN_FILES.get(module, {}):
                            yield f"{os.path.relpath(path, root)}:{number}: {module} includes {target} ({FORBIDDEN_FILES[module][target]})"


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_layers.py SOURCE_DIR", file=sys.stderr)
        return 2
    found = sorted(violations(argv[1]))
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} include(s) run up the module order")
        return 1
    print("every include points down the module order")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
