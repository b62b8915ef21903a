#!/usr/bin/env python3
"""Mutation fuzzing of the whole cfacc: take the project's own cfa-lite
programs, damage them a little (drop, repeat, swap or insert a token or a
line), and compile each result with `cfacc -fsyntax-only`.

Whatever the input, cfacc must
  * not crash (no signal, no LLVM stack dump) and not hang (a time limit);
  * exit 0, or exit non-zero with at least one `error:` line;
  * speak the user's program in every diagnostic: no lowered name
    (`__cfa...`) in any message, caret line or note. The source lines a
    diagnostic quotes from cfacc's own headers are exempt: they are those
    headers' text as installed, not a lowering (a program that includes
    one inside a function gets errors there).

  compiler/fuzz/mutate.py --cfacc build/compiler/cfacc [--count N] [--seed S]
                          [--jobs J] [--keep DIR] [--timeout SEC]

Deterministic for a given seed and corpus. Prints one summary line
"mutate: N programs, F failures" and exits 1 when there is a failure,
after copying each failing program (with cfacc's output) to --keep.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|->|\+\+|--|&&|\|\||[<>=!]=|\S")
INSERTS = ["thread", "coroutine", "monitor", "mutex", "waitfor", "or", "when", "timeout", "else",
           "main", "suspend", "resume", "new", "delete", "join", "processor", "cluster", "condition",
           "wait", "signal", "(", ")", "{", "}", "[", "]", ";", ",", "*", "&", "=", "`ms", "0",
           "struct", "typedef", "static", "void", "int", "this", "return", "goto", "break"]


def corpus(top):
    files = []
    for d in ["test", "examples"]:
        for root, _, names in os.walk(os.path.join(top, d)):
            for n in sorted(names):
                if n.endswith(".cfa"):
                    files.append(os.path.join(root, n))
    return sorted(files)


def mutate(text, rng):
    for _ in range(rng.randint(1, 3)):
        tokens = [m for m in TOKEN.finditer(text)]
        if not tokens:
            return text
        op = rng.randrange(7)
        t = rng.choice(tokens)
        if op == 0:    # drop a token
            text = text[:t.start()] + text[t.end():]
        elif op == 1:  # repeat a token
            text = text[:t.end()] + " " + t.group() + text[t.end():]
        elif op == 2:  # swap two neighbouring tokens
            i = tokens.index(t)
            if i + 1 < len(tokens):
                u = tokens[i + 1]
                text = text[:t.start()] + u.group() + text[t.end():u.start()] + t.group() + text[u.end():]
        elif op == 3:  # insert a token that matters to cfacc
            text = text[:t.start()] + rng.choice(INSERTS) + " " + text[t.start():]
        elif op == 4:  # replace a name by another name of the file
            names = [m for m in tokens if re.match(r"[A-Za-z_]", m.group())]
            if names:
                text = text[:t.start()] + rng.choice(names).group() + text[t.end():]
        else:          # drop or repeat a line
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            if op == 5:
                del lines[i]
            else:
                lines.insert(i, lines[i])
            text = "\n".join(lines)
    return text


LOCATION = re.compile(r"^(.+):\d+:\d+: (?:error|warning|note|fatal error|remark):")
SNIPPET = re.compile(r"^ *\d* \|")


def names_lowered_program(out, own_headers):
    """Whether a diagnostic line names a `__cfa` helper, skipping the quoted
    source and caret lines of a diagnostic located in cfacc's own headers."""
    in_own_header = False
    for line in out.splitlines():
        m = LOCATION.match(line)
        if m:
            in_own_header = os.path.realpath(m.group(1)).startswith(own_headers)
        elif in_own_header and SNIPPET.match(line):
            continue
        if "__cfa" in line:
            return True
    return False


def verdict(proc, timed_out, source, own_headers):
    out = (proc.stderr if proc else "") + (proc.stdout if proc else "")
    if timed_out:
        return "hang", out
    if proc.returncode < 0 or re.search(r"^(Stack dump:|PLEASE submit a bug report)", out, re.M):
        return "crash", out
    if proc.returncode != 0 and "error:" not in out:
        return "silent failure", out
    if "__cfa" not in source and names_lowered_program(out, own_headers):
        return "lowered name in a diagnostic", out
    return None, out


def own_header_dir(cfacc):
    """cfacc's own headers, found as cfacc finds them: include/ beside the
    binary (a build tree) or beside its bin/ (an installation)."""
    here = os.path.dirname(os.path.realpath(cfacc))
    for d in (os.path.join(here, "include"), os.path.join(here, "..", "include")):
        if os.path.exists(os.path.join(d, "cfa", "prelude.h")):
            return os.path.realpath(d) + "/"
    sys.exit("mutate: no cfa/prelude.h beside %s" % cfacc)


def run_one(args):
    cfacc, source_dir, name, text, timeout, include, own_headers = args
    path = os.path.join(source_dir, name)
    with open(path, "w") as f:
        f.write(text)
    try:
        proc = subprocess.run([cfacc, "-fsyntax-only", "-I", include, path], capture_output=True,
                              text=True, errors="replace", timeout=timeout, cwd=source_dir)
        return name, text, verdict(proc, False, text, own_headers)
    except subprocess.TimeoutExpired:
        return name, text, verdict(None, True, text, own_headers)
    finally:
        os.unlink(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cfacc", required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--keep", default="mutate-failures")
    a = ap.parse_args()
    a.cfacc = os.path.abspath(shutil.which(a.cfacc) or a.cfacc)  # cfacc runs in the work directory
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = corpus(top)
    rng = random.Random(a.seed)
    own_headers = own_header_dir(a.cfacc)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="cfacc-mutate-") as work:
        def jobs():
            for i in range(a.count):
                src = rng.choice(files)
                with open(src, errors="replace") as f:
                    text = f.read()
                yield (a.cfacc, work, "m%06d.cfa" % i, mutate(text, rng), a.timeout,
                       os.path.dirname(src), own_headers)
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for name, text, (bad, out) in pool.map(run_one, jobs()):
                if not bad:
                    continue
                failures += 1
                os.makedirs(a.keep, exist_ok=True)
                with open(os.path.join(a.keep, name), "w") as f:
                    f.write(text)
                with open(os.path.join(a.keep, name + ".out"), "w") as f:
                    f.write(out)
                first = next((l for l in out.splitlines() if "error" in l or "__cfa" in l), "")
                print("mutate: %s: %s: %s" % (name, bad, first[:200]))
    print("mutate: %d programs, %d failures" % (a.count, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
