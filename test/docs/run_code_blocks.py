#!/usr/bin/env python3
"""Runs the programs of a manual page (test/docs/README in test/README.md).

Owns the rule that a page's ```cfa blocks are tested: each is a whole
program, and the fenced block right after it (prose may sit between them)
must be an ```output block holding exactly what the program prints on
stdout; it must exit with status 0. Fragments that are not whole programs
are fenced ```c instead and are not run.

Usage: run_code_blocks.py WORKDIR PAGE.md... -- CFACC [FLAGS...]

Fails (exit 1, one line per problem, as FILE:LINE: ...) when a page has no
```cfa block, a ```cfa block has no ```output block after it, an ```output
block follows no ```cfa block, a program does not compile, exits non-zero,
times out, or prints anything other than its ```output block.
"""
import os
import re
import subprocess
import sys

FENCE = re.compile(r"^```(\w*)\s*$")
TIMEOUT_S = 120


def blocks(path):
    """Yields (language, first line number, text) for each fenced block."""
    lang, start, body = None, 0, []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            m = FENCE.match(line.rstrip("\n"))
            if lang is None:
                if m:
                    lang, start, body = m.group(1), number, []
            elif line.rstrip("\n") == "```":
                yield lang, start, "".join(body)
                lang = None
            else:
                body.append(line)
    if lang is not None:
        yield "unterminated", start, "".join(body)


def programs(path, problems):
    """Pairs every ```cfa block with the ```output block after it."""
    pending = None
    found = []
    for lang, line, text in blocks(path):
        where = "%s:%d" % (path, line)
        if lang == "unterminated":
            problems.append("%s: fenced block never closed" % where)
        elif pending is not None:
            if lang == "output":
                found.append((pending[0], pending[1], text))
            else:
                problems.append("%s: ```cfa block without an ```output block after it" % pending[0])
            pending = None
            if lang == "cfa":
                pending = (where, text)
        elif lang == "cfa":
            pending = (where, text)
        elif lang == "output":
            problems.append("%s: ```output block after no ```cfa block" % where)
    if pending is not None:
        problems.append("%s: ```cfa block without an ```output block after it" % pending[0])
    if not found and not problems:
        problems.append("%s: no ```cfa block: nothing tested" % path)
    return found


def run(where, source, expected, workdir, index, cfacc, problems):
    src = os.path.join(workdir, "block%d.cfa" % index)
    binary = os.path.join(workdir, "block%d" % index)
    with open(src, "w") as f:
        f.write(source)
    try:
        c = subprocess.run(cfacc + ["-O2", "-Wall", "-Werror", "-o", binary, src],
                           capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        problems.append("%s: cfacc timed out" % where)
        return
    if c.returncode != 0:
        problems.append("%s: does not compile:\n%s" % (where, c.stderr))
        return
    try:
        r = subprocess.run([binary], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        problems.append("%s: the program timed out (%d s)" % (where, TIMEOUT_S))
        return
    if r.returncode != 0:
        problems.append("%s: exit status %d\n%s" % (where, r.returncode, r.stderr))
    if r.stdout != expected:
        problems.append("%s: output differs\n--- expected\n%s--- got\n%s"
                        % (where, expected, r.stdout))


def main(argv):
    if "--" not in argv or argv.index("--") < 3 or argv.index("--") == len(argv) - 1:
        sys.exit(__doc__)
    split = argv.index("--")
    workdir, pages, cfacc = argv[1], argv[2:split], argv[split + 1:]
    os.makedirs(workdir, exist_ok=True)
    problems = []
    count = 0
    for page in pages:
        for where, source, expected in programs(page, problems):
            count += 1
            run(where, source, expected, workdir, count, cfacc, problems)
    for p in problems:
        print(p)
    print("%d programs, %d problems" % (count, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
