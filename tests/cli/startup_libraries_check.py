#!/usr/bin/env python3
"""Start-up loads only what every run needs: `kith run` of a one-line script maps
none of the outside allocators' libraries (libjemalloc, libmimalloc, libgc), nor
libedit (the REPL's), nor the shared C++ runtime (release builds link it in); each
outside policy this build lists still runs when chosen, loading its library then;
and a library that cannot be loaded is one `kith: ...` line naming the package,
exit 69.

usage: startup_libraries_check.py KITH

The dynamic loader's own account (LD_DEBUG=libs, on stderr) says which libraries
a run loaded. Prints "ok" or the first problem (exit 1).
"""
import os
import re
import subprocess
import sys
import tempfile

NEVER_AT_START = ["libjemalloc", "libmimalloc", "libgc.so", "libedit", "libtinfo", "libbsd"]
OUTSIDE = {"jemalloc": "libjemalloc.so", "mimalloc": "libmimalloc.so", "boehm": "libgc.so"}


def fail(message):
    sys.exit("FAIL: " + message)


def run(kith, args, env_extra=None):
    env = dict(os.environ)
    env.pop("GLIBC_TUNABLES", None)
    env.update(env_extra or {})
    return subprocess.run([kith, *args], capture_output=True, text=True, env=env, timeout=60)


def loaded(stderr):
    """The libraries the loader initialised ("calling init: PATH")."""
    return re.findall(r"calling init: (\S+)", stderr)


def sanitized(kith):
    return "asan" in subprocess.run(["ldd", kith], capture_output=True, text=True).stdout


def main():
    kith = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "one.kith")
        with open(script, "w") as f:
            f.write("print(1);\n")

        r = run(kith, ["run", script], {"LD_DEBUG": "libs"})
        if r.returncode != 0 or r.stdout != "1\n":
            fail(f"kith run one.kith: exit {r.returncode}, stdout {r.stdout!r}")
        libs = loaded(r.stderr)
        if not libs:
            fail("LD_DEBUG=libs named no library: cannot tell what was loaded")
        never = NEVER_AT_START + ([] if sanitized(kith) else ["libstdc++"])
        for lib in libs:
            for name in never:
                if name in os.path.basename(lib):
                    fail(f"kith run of a one-line script loaded {lib}")

        policies = run(kith, ["policies"]).stdout
        for policy, library in OUTSIDE.items():
            if not re.search(rf"^\s*{policy}\b", policies, re.M):
                continue  # left out of this build; kith policies notes it
            r = run(kith, ["run", f"--heap={policy}", script], {"LD_DEBUG": "libs"})
            if r.returncode != 0 or r.stdout != "1\n":
                fail(f"--heap={policy}: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr[-300:]!r}")
            if not any(library in os.path.basename(lib) for lib in loaded(r.stderr)):
                fail(f"--heap={policy} ran without loading {library}")

        if re.search(r"^\s*jemalloc\b", policies, re.M):
            # A process started without room for jemalloc's static TLS (the tunable set
            # by the caller, so kith does not start again with more) cannot load it.
            r = run(kith, ["run", "--heap=jemalloc", script],
                    {"GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=0"})
            lines = r.stderr.splitlines()
            if r.returncode != 69 or len(lines) != 1 or not lines[0].startswith(
                    "kith: the jemalloc policy needs libjemalloc.so.2 (Debian package libjemalloc2): "):
                fail(f"jemalloc without static TLS room: exit {r.returncode}, stderr {r.stderr!r}")
            if r.stdout:
                fail(f"jemalloc without static TLS room ran the script: {r.stdout!r}")
    print("ok")


if __name__ == "__main__":
    main()
