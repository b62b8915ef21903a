"""ConformanceFormat: lit test format for one contract program NAME.cfa and
its side files (see lit.local.cfg): compile, run, compare.
It lives in a module (not lit.local.cfg) so lit's worker processes can
unpickle it."""
import os
import re
import subprocess
import tempfile

import lit.formats
import lit.Test


def _regexes(path):
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def _matches_some_line(regex, text):
    pattern = re.compile(regex)
    return any(pattern.search(line) for line in text.splitlines())


class ConformanceFormat(lit.formats.TestFormat):
    def __init__(self, cfacc, expected_to_fail, left_out):
        self.cfacc = cfacc
        self.expected_to_fail = expected_to_fail
        self.left_out = left_out

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig, localConfig):
        source = testSuite.getSourcePath(path_in_suite)
        for name in sorted(os.listdir(source)):
            if name.endswith(".cfa"):
                test = lit.Test.Test(testSuite, path_in_suite + (name,), localConfig)
                if name[:-4] in self.expected_to_fail:
                    test.xfails = ["*"]
                yield test

    def execute(self, test, litConfig):
        src = test.getSourcePath()
        base = src[:-4]
        name = os.path.basename(base)
        if name in self.left_out:
            return lit.Test.Result(lit.Test.UNSUPPORTED, "left out: " + self.left_out[name])
        notes = []
        if name in self.expected_to_fail:
            notes.append("expected to fail: " + self.expected_to_fail[name])
        with tempfile.TemporaryDirectory() as work:
            binary = os.path.join(work, name)
            if os.path.exists(base + ".diag"):
                ok = self._diagnostic(src, base, binary, notes)
            else:
                ok = self._run(src, base, binary, notes)
        return lit.Test.Result(lit.Test.PASS if ok else lit.Test.FAIL, "\n".join(notes))

    def _diagnostic(self, src, base, binary, notes):
        try:
            p = subprocess.run([self.cfacc, "-o", binary, src], capture_output=True,
                               text=True, timeout=60)
        except subprocess.TimeoutExpired:
            notes.append("cfacc timed out")
            return False
        if p.returncode == 0:
            notes.append("cfacc accepted a program that must not compile")
            return False
        ok = True
        for regex in _regexes(base + ".diag"):
            if not _matches_some_line(regex, p.stderr):
                notes.append("missing diagnostic: " + regex)
                ok = False
        if not ok:
            notes.append(p.stderr)
        return ok

    def _run(self, src, base, binary, notes):
        try:
            p = subprocess.run([self.cfacc, "-O2", "-o", binary, src], capture_output=True,
                               text=True, timeout=120)
        except subprocess.TimeoutExpired:
            notes.append("cfacc timed out")
            return False
        if p.returncode != 0:
            notes.append("compilation failed:\n" + p.stderr)
            return False
        env = dict(os.environ)
        if os.path.exists(base + ".env"):
            for line in _regexes(base + ".env"):
                key, _, value = line.partition("=")
                env[key] = value
        try:
            r = subprocess.run([binary], capture_output=True, text=True, env=env,
                               stdin=subprocess.DEVNULL, timeout=60)
        except subprocess.TimeoutExpired:
            notes.append("the program timed out (60 s)")
            return False
        ok = True
        want = "0"
        if os.path.exists(base + ".exit"):
            with open(base + ".exit") as f:
                want = f.read().strip()
        if want == "nonzero":
            if r.returncode == 0:
                notes.append("exit status 0, expected a failure status")
                ok = False
        elif str(r.returncode) != want:
            notes.append("exit status %d, expected %s" % (r.returncode, want))
            ok = False
        if os.path.exists(base + ".expect"):
            with open(base + ".expect") as f:
                expected = f.read()
            if r.stdout != expected:
                notes.append("stdout differs:\n--- expected\n%s--- got\n%s" % (expected, r.stdout))
                ok = False
        if os.path.exists(base + ".stderr"):
            for regex in _regexes(base + ".stderr"):
                if not _matches_some_line(regex, r.stderr):
                    notes.append("missing on stderr: " + regex)
                    ok = False
        if not ok:
            notes.append("stderr:\n" + r.stderr[-4000:])
        return ok

