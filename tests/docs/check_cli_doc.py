#!/usr/bin/env python3
"""docs/CLI.md against the tool: its commands, options and exit codes are kith's.

    check_cli_doc.py KITH SOURCE_DIR

- Commands: every `  kith COMMAND` entry of `kith --help` has a section in docs/CLI.md
  (a heading naming `kith COMMAND`), and every such section is a command of the help.
- Options: every option a command's help lists is in that command's table in CLI.md, and
  every option of the table is one the command accepts. Accepted means kith does not exit
  64 (usage) when given it with a sample value on a command line that otherwise works: a
  tiny script, a recorded trace, `exec -- true`, a benchmark cut to one repetition. An
  option the help mentions only in a description counts as listed when the command
  accepts it (`--fail-alloc-every` in --fail-alloc's line; not replay's `--gc=none`,
  which describes run). The study's help is argparse's, made from its parser, so there
  the names listed must be the names documented.
- Exit codes: CLI.md's table is cli/exit_codes.h's constants, code by code and name by
  name, and every code `kith --help` mentions is in it.

Prints `ok: ...` and exits 0, or names every difference and exits 1; 2 on bad usage.
"""
import os
import re
import subprocess
import sys
import tempfile

OPTION = re.compile(r"--[a-z][a-z0-9-]*")
OPTION_WITH_VALUE = re.compile(r"(--[a-z][a-z0-9-]*)(\*|=[A-Za-z0-9|.]+)?")

# What a metavariable of CLI.md is replaced by to try an option; PATH is a fresh file.
# A literal choice (`on|off`, `binary|text`) is tried as its first alternative.
SAMPLES = {"POLICY": "estranged", "SIZE": "1M", "COLLECTOR": "occasional", "N": "1", "F": "0.5",
           "PCT": "98", "H": "zone", "MODE": "time"}

# Options that are refused alone: what they need beside them.
COMPANIONS = {"--trace-format": ["--trace={tmp}/companion.trace"],
              "--host-probe-ms": ["--stats-file={tmp}/companion.json"]}

# Where each command's help lists its options: "section" (the lines under a heading
# of `kith COMMAND --help`), "synopsis" (the bracketed options of its `  kith ...`
# entry), "text" (anywhere in the help; `--gc-*` stands for run's --gc- options),
# "argparse" (the study driver's `options:`).
COMMANDS = {
    "run": ("section", ["run", "--help"], "options of run"),
    "repl": ("text", ["repl", "--help"], None),
    "disasm": ("synopsis", ["disasm", "--help"], None),
    "replay": ("section", ["replay", "--help"], "options of replay"),
    "trace dump": ("synopsis", ["trace", "--help"], None),
    "trace lifetimes": ("synopsis", ["trace", "--help"], None),
    "exec": ("section", ["exec", "--help"], "options of exec"),
    "policies": ("synopsis", ["policies", "--help"], None),
    "bench contrived": ("synopsis", ["bench", "--help"], None),
    "bench defrag": ("synopsis", ["bench", "--help"], None),
    "study": ("argparse", ["study", "--help"], None),
    "study --native": ("argparse", ["study", "--native", "--help"], None),
}


def command_of(text):
    """`kith trace lifetimes [--json] TRACE` -> "trace lifetimes": the lowercase words after
    `kith`, and a bare `--word` after them (`study --native`); "" for `kith [OPTIONS] FILE`."""
    words = []
    for w in text.split()[1:]:
        if re.fullmatch(r"[a-z]+", w) or (words and re.fullmatch(r"--[a-z]+", w)):
            words.append(w)
        else:
            break
    return " ".join(words)


def option_column(line):
    """An option line's first column (the text before a gap of two spaces or more)."""
    return re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]


class Kith:
    def __init__(self, path, tmp):
        self.path, self.tmp, self.made = path, tmp, 0
        self.script = os.path.join(tmp, "tiny.kith")
        with open(self.script, "w") as f:
            f.write("let x = 1;\n")
        self.trace = os.path.join(tmp, "tiny.trace")
        code, _, err = self.run(["run", f"--trace={self.trace}", self.script])
        if code != 0:
            sys.exit(f"check_cli_doc: cannot record a trace to try replay's options: {err.strip()}")

    def run(self, args):
        p = subprocess.run([self.path] + args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=60, cwd=self.tmp)
        return p.returncode, p.stdout, p.stderr

    def help(self, args):
        code, out, err = self.run(args)
        if code != 0:
            sys.exit(f"check_cli_doc: kith {' '.join(args)} exited {code}: {err.strip()}")
        return out

    def fresh_path(self):
        self.made += 1
        return os.path.join(self.tmp, f"out{self.made}")

    def command_line(self, command, words):
        """A command line of `command` that works, with `words` among its options."""
        if command == "run":
            return ["run", *words, self.script]
        if command == "repl":
            return ["repl", *words]
        if command == "disasm":
            return ["disasm", *words, self.script]
        if command == "replay":
            return ["replay", *words, self.trace]
        if command.startswith("trace "):
            return command.split() + [*words, self.trace]
        if command == "exec":
            return ["exec", *words, "--", "true"]
        if command == "bench contrived":
            return ["bench", "contrived", *words, "--heap-size=1M", "--repetitions=1"]
        if command == "bench defrag":
            return ["bench", "defrag", *words, "--seeds=1"]
        return command.split() + words

    def refusal(self, command, name, value):
        """None when `command` takes the option `name` with `value` (None: no value), else why not."""
        spelled = name if value is None else f"{name}={self.sample(value)}"
        words = [spelled] + [w.format(tmp=self.tmp) for w in COMPANIONS.get(name, [])]
        code, _, err = self.run(self.command_line(command, words))
        if code != 64:
            return None
        return f"kith {command} {' '.join(words)} exits 64: {err.strip().splitlines()[0] if err.strip() else ''}"

    def sample(self, value):
        first = value.split("|")[0]
        if first == "PATH" or first == "DIR":
            return self.fresh_path()
        if first.isupper():
            if first not in SAMPLES:
                sys.exit(f"check_cli_doc: no sample value for {first}: add one to SAMPLES")
            return SAMPLES[first]
        return first


def documented(doc_text):
    """{command: [(name, value or None, as written)]} from CLI.md's command sections, and the
    exit-code table's rows {code: name}."""
    options, codes = {}, {}
    section = None
    for line in doc_text.splitlines():
        heading = re.match(r"^(#+)\s+(.*)$", line)
        if heading:
            span = re.search(r"`(kith [^`]*)`", heading.group(2))
            command = command_of(span.group(1)) if span else ""
            section = command or heading.group(2).strip()
            if command:
                options.setdefault(command, [])
            continue
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if not cells:
            continue
        if section == "Exit codes":
            row = re.fullmatch(r"(\d+)", cells[0])
            name = re.search(r"`(kExit\w+)`", cells[1]) if len(cells) > 1 else None
            if row:
                codes[int(row.group(1))] = name.group(1) if name else None
            continue
        if section not in options:
            continue
        span = re.match(r"`(--[^`]*)`", cells[0])
        if not span:
            continue
        spelled = span.group(1).replace("\\|", "|")
        m = re.match(r"(--[a-z][a-z0-9-]*)(?:\[?=([^\]\s]+)\]?)?", spelled)
        options[section].append((m.group(1), m.group(2), spelled))
    return options, codes


def help_commands(top_help):
    return {command_of(option_column(line)) for line in top_help.splitlines() if line.startswith("  kith ")} - {""}


def listed(kith, command, run_listed, doc_options):
    """The option names the help of `command` lists, and notes on what it mentions but refuses."""
    kind, args, heading = COMMANDS[command]
    text = kith.help(args)
    names, notes = set(), []
    if kind == "argparse":
        part = re.split(r"\n(?:options|optional arguments):\n", text, maxsplit=1)[-1]  # Python 3.10+, before
        for line in part.splitlines():
            m = re.match(r"^  (?:-h, )?(--[a-z][a-z0-9-]*)", line)
            if m:
                names.add(m.group(1))
    elif kind == "synopsis":
        for line in text.splitlines():
            if line.startswith("  kith ") and command_of(option_column(line)) == command:
                names |= set(OPTION.findall(option_column(line)))
    elif kind == "section":
        lines = text.splitlines()
        start = next(i for i, l in enumerate(lines) if l.startswith(heading))
        described = set()
        for line in lines[start + 1:]:
            if not line.strip():
                break
            column = option_column(line) if line.startswith("  --") else ""
            names |= set(OPTION.findall(column))
            described |= set(OPTION_WITH_VALUE.findall(line[len(column) + 2:] if column else line))
        for name, value in sorted(described):
            if name in names:
                continue
            why = kith.refusal(command, name, value[1:] if value.startswith("=") else None)
            if why is None:
                names.add(name)
    elif kind == "text":
        for name, value in set(OPTION_WITH_VALUE.findall(text)):
            if value != "*":
                names.add(name)
                continue
            for candidate in sorted(n for n in run_listed if n.startswith(name)):
                spec = next((v for n, v, _ in doc_options.get("run", []) if n == candidate), None)
                why = kith.refusal(command, candidate, spec)
                if why is None:
                    names.add(candidate)
                else:
                    notes.append(f"note: `kith {command} --help` says {name}* but: {why}")
    return names - {"--help"}, notes


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    kith_path, source = argv[1], argv[2]
    with open(os.path.join(source, "docs", "CLI.md"), encoding="utf-8") as f:
        doc_options, doc_codes = documented(f.read())
    with open(os.path.join(source, "cli", "exit_codes.h"), encoding="utf-8") as f:
        header_codes = {int(code): name for name, code in
                        re.findall(r"inline constexpr int (kExit\w+) = (\d+);", f.read())}
    problems, notes = [], []
    with tempfile.TemporaryDirectory(prefix="kith-cli-doc-") as tmp:
        kith = Kith(kith_path, tmp)
        top = kith.help(["--help"])
        tool_commands = help_commands(top)
        for c in sorted(tool_commands - set(doc_options)):
            problems.append(f"`kith {c}` is in `kith --help` but has no section in docs/CLI.md")
        for c in sorted(set(doc_options) - tool_commands):
            problems.append(f"docs/CLI.md has a section for `kith {c}`, which `kith --help` does not list")
        for c in sorted(tool_commands - set(COMMANDS)):
            problems.append(f"`kith {c}`: tests/docs/check_cli_doc.py does not know where its help lists options")

        run_listed, _ = listed(kith, "run", set(), doc_options)
        tried = 0
        for command in [c for c in COMMANDS if c in tool_commands]:
            names, command_notes = (run_listed, []) if command == "run" else listed(kith, command, run_listed,
                                                                                    doc_options)
            notes += command_notes
            rows = doc_options.get(command, [])
            documented_names = {name for name, _, _ in rows}
            for name in sorted(names - documented_names):
                problems.append(f"`kith {command} --help` lists {name}, which docs/CLI.md's `kith {command}` "
                                "table does not document")
            if COMMANDS[command][0] == "argparse":
                for name in sorted(documented_names - names):
                    problems.append(f"docs/CLI.md documents {name} for `kith {command}`, which its help "
                                    "(made from its parser) does not list")
                continue
            for name, value, spelled in rows:
                tried += 1
                why = kith.refusal(command, name, value)
                if why:
                    problems.append(f"docs/CLI.md documents `{spelled}` for `kith {command}`, which refuses it: "
                                    f"{why}")

        if doc_codes != header_codes:
            for code in sorted(set(doc_codes) | set(header_codes)):
                if doc_codes.get(code) != header_codes.get(code):
                    problems.append(f"exit code {code}: docs/CLI.md says {doc_codes.get(code, 'nothing')}, "
                                    f"cli/exit_codes.h {header_codes.get(code, 'nothing')}")
        mentioned = top.split("Exit codes:", 1)[-1]
        for code in sorted({int(n) for n in re.findall(r"\b(\d+)\b", mentioned)} - set(doc_codes)):
            problems.append(f"`kith --help` names exit code {code}, which docs/CLI.md's table does not have")

    for note in notes:
        print(note)
    if problems:
        for p in problems:
            print(p)
        print(f"{len(problems)} differences between docs/CLI.md and kith")
        return 1
    print(f"ok: {len(tool_commands)} commands, {tried} documented options accepted, "
          f"{len(doc_codes)} exit codes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
