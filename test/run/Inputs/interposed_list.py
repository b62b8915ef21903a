"""Checks cfa/internal/interposed.def against the runtime's libraries.

usage: interposed_list.py DEF LIBCFA_A CFACC

The C library functions libcfa.a defines (its global definitions that
glibc's libc.so.6 also exports) are the .def's names; libcfa-static.a
defines each as __wrap_<name> and none under its own name, and refers to
glibc's only as __real_<name> of a listed name. Prints one line per
disagreement, then a summary.
"""
import re
import subprocess
import sys


def symbols(*args):
    out = subprocess.run(["nm", *args], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 2 and len(fields[-2]) == 1:
            yield fields[-2], fields[-1].split("@")[0]


def main(def_path, libcfa, cfacc):
    listed = set(re.findall(r"^CFA_INTERPOSED\((\w+)\)$", open(def_path).read(), re.M))
    ask = lambda name: subprocess.run([cfacc, "-print-file-name=" + name], capture_output=True,
                                      text=True, check=True).stdout.strip()
    glibc = {name for kind, name in symbols("-D", "--defined-only", ask("libc.so.6")) if kind in "TWi"}
    defined = {name for kind, name in symbols("--defined-only", libcfa) if kind in "TW"}
    static = list(symbols(ask("libcfa-static.a")))
    wraps = {name[len("__wrap_"):] for kind, name in static if kind in "TW" and name.startswith("__wrap_")}
    reals = {name[len("__real_"):] for kind, name in static if kind == "U" and name.startswith("__real_")}
    plain = {name for kind, name in static if kind in "TW"} & listed
    problems = []
    problems += ["libcfa.a defines %s, not in the list" % n for n in sorted(defined & glibc - listed)]
    problems += ["listed %s, not defined by libcfa.a" % n for n in sorted(listed - defined)]
    problems += ["libcfa-static.a lacks __wrap_%s" % n for n in sorted(listed - wraps)]
    problems += ["libcfa-static.a defines __wrap_%s, not in the list" % n for n in sorted(wraps - listed)]
    problems += ["libcfa-static.a defines %s itself" % n for n in sorted(plain)]
    problems += ["libcfa-static.a calls __real_%s, not in the list" % n for n in sorted(reals - listed)]
    for problem in problems:
        print(problem)
    print("%d listed, %d problems" % (len(listed), len(problems)))


if __name__ == "__main__":
    main(*sys.argv[1:])
