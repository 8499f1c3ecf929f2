#!/usr/bin/env python3
"""Writes the hand-made seed inputs of the fuzz corpora (tests/fuzz/corpus/<target>/
seed_*), so they can be regenerated and read: make_seeds.py [KITH]. With the kith
binary given, also the trace seeds recorded from a small run (text and binary).
Inputs the fuzzers found and kept sit beside them under their libFuzzer names.
"""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_program  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")


def put(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(CORPUS, target, "seed_" + name), "wb") as f:
        f.write(data)


def nesting():
    """(e): source nested at and past the compiler's limit of 1,000 levels."""
    for n in (999, 1001, 5000):
        put("compile", f"parens_{n}", "print(" + "(" * n + "1" + ")" * n + ");\n")
        put("compile", f"brackets_{n}", "let a = " + "[" * n + "]" * n + ";\n")
        put("compile", f"blocks_{n}", "{" * n + "}" * n + "\n")
        put("compile", f"unary_{n}", "let x = " + "-!" * (n // 2) + "1;\n")
        put("compile", f"fn_literals_{n}", "let f = " + "fn () { return " * n + "1" + "; }" * n + ";\n")
        put("compile", f"if_bodies_{n}", "if (true) " * n + "print(1);\n")
    put("compile", "unclosed_40000", "(" * 40000)
    put("compile", "assign_chain_5000", "let a; " + "a = " * 5000 + "1;\n")
    put("compile", "mixed_1200", "".join("([{-" [i % 4] for i in range(1200)))


def programs():
    for seed in (1, 2, 3):
        put("compile", f"generated_{seed}.kith", gen_program.generate(seed))
    for seed in (4, 5, 6, 7):
        put("run", f"generated_{seed}.kith", gen_program.generate(seed))
    put("run", "loop_forever.kith", "let i = 0; while (true) { i = i + 1; }\n")
    put("run", "catch_forever.kith", "while (true) { try { throw 1; } catch (e) { } }\n")
    put("run", "recurse_forever.kith",
        "fn f(n) { try { return f(n + 1); } catch (e) { return f(n + 1) + f(n + 2); } }\nprint(f(0));\n")
    put("run", "tostring_array.kith",
        'class B { toString() { return "b" + 1; } }\nclass A { toString() { return [new B(), new B()]; } }\nprint(new A());\n')
    put("run", "tostring_drops_array.kith",
        "let holder = nil;\nclass D { toString() { holder = nil; let j = nil; for (let i = 0; i < 200; i = i + 1) j = [i, j]; return \"d\"; } }\n"
        "for (let k = 0; k < 5; k = k + 1) { holder = [new D(), [1, 2], \"m\"]; print(holder); }\n")
    put("run", "oom_messages.kith",
        "let keep = []; let msg = nil;\ntry { while (true) keep = [keep, new Array(1000)]; } catch (e) { msg = e.message; }\n"
        "keep = nil; print(msg); let x = new Array(100000000);\n")
    put("run", "deep_str.kith", "let d = []; for (let i = 0; i < 1200; i = i + 1) d = [d];\ntry { print(d); } catch (e) { print(e.message); }\n")
    put("run", "cyclic.kith", "let a = [1, nil]; a[1] = a; let m = new Map(); m.put(a, a); print(a, m.get(a), m.keys());\n")
    put("run", "exit.kith", "print(1); System.exit(3); print(2);\n")


def heap_ops():
    # byte 0 policy, byte 1 arena (bits 0-1) and relocator (bit 2), then operations.
    for policy in range(7):
        for flags in (0, 4 | 1):
            ops = bytearray([policy, flags])
            for i in range(60):
                ops += bytes([0x40 | (i % 64), (i * 7) % 256])  # malloc 16 * byte
                if i % 3 == 2:
                    ops += bytes([0xc0, i])                     # free one
            ops += bytes([0x80, 0x00, 0x04])                    # malloc 16K
            ops += bytes(range(0xf0, 0xf8))                     # the edge sizes
            ops += bytes([0xf8, 0xe0] * 10)
            put("heap_ops", f"p{policy}_f{flags}", bytes(ops))
        # Fill the 16K arena with small blocks, free every other, then ask for big ones.
        ops = bytearray([policy, 4])
        ops += bytes([0x20] * 300) + bytes([0xc0, 1] * 150) + bytes([0x80, 0x40, 0x00] * 4)
        put("heap_ops", f"p{policy}_fragment", bytes(ops))


def traces(kith):
    text = "# kith-trace 1\nA 0 0 24\nA 1 1 32\nF 2 0\nX 3 1000000\nA 4 2 0\nF 5 2\nF 6 1\n"
    put("trace", "text.txt", text)
    put("trace", "text_bad_free.txt", "# kith-trace 1\nA 0 0 24\nF 1 7\n")
    resizes = "# kith-trace 1\nA 0 0 24\nR 1 0 16\nM 2 0 4000\nA 3 1 8\nM 4 1 100000\nF 5 0\nR 6 1 0\n"
    put("trace", "text_resizes.txt", resizes)
    put("trace", "text_resize_freed.txt", "# kith-trace 1\nA 0 0 24\nF 1 0\nM 2 0 32\n")
    # The same resizes in binary: tags 0x0a (resize) and 0x1a (move), z and size varints.
    put("trace", "resizes.bin", b"KITHTRC\0\x01\x30\x0a\x00\x10\x1a\x00\xa0\x1f\x10"
                                 b"\x1a\x02\xa0\x8d\x06\x09\x0a\x00\x00\x03\x07")
    put("trace", "text_time_backwards.txt", "# kith-trace 1\nA 5 0 24\nA 1 1 8\n")
    put("trace", "text_huge.txt", "# kith-trace 1\nA 18446744073709551615 0 18446744073709551615\n")
    put("trace", "empty", "")
    put("trace", "magic_only", b"KITHTRC\0")
    if not kith:
        return
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "t.kith")
        with open(script, "w") as f:
            f.write('let a = [1, 2, 3]; let s = "x" + 1; a = nil; System.gc();\n'
                    "let l = new List(); for (let i = 0; i < 30; i = i + 1) l.add([i]); print(l.size());\n")
        for ext in ("txt", "bin"):
            path = os.path.join(d, "t." + ext)
            subprocess.run([kith, "run", "--heap-size=64K", f"--trace={path}", script], check=True,
                           capture_output=True)
            data = open(path, "rb").read()
            put("trace", "recorded." + ext, data)
            put("trace", "recorded_cut." + ext, data[: len(data) * 2 // 3])


if __name__ == "__main__":
    nesting()
    programs()
    heap_ops()
    traces(sys.argv[1] if len(sys.argv) > 1 else None)
