# -*- Python -*-
# lit configuration of every cfa-lite test suite. CMake configures
# lit.site.cfg.py (from lit.site.cfg.py.in) into <build>/test; run
#
#   lit <build>/test             every suite
#   lit <build>/test/runtime     one suite
#   lit -Dstress=20 ...          repeat counts for %stress
#
# Substitutions
#   %cc          clang-19 -O2 -g, runtime headers, the build's sanitizer flags
#   %cfa-link    libcfa.a, -luring -lhwloc -lpthread, sanitizer flags
#   %cfacc       the built cfacc (feature `cfacc` when it exists); in a build
#                without one, CFA_HOST_CFACC's, linking this build's libraries
#   %stress      repeat count: 1, or N with -Dstress=N (feature `stress`)
#   %timeout     `timeout <seconds>` bounding one command (scaled under sanitizers):
#                a hang detector, so far above any run on a loaded machine
#                (-Dtimeout=N sets the base, default 300 s)
#   FileCheck, not, count   from LLVM 19 (found by CMake)
#   %memcached   Debian's memcached (feature `memcached`)
#   %cfa-lib     the build's libcfa.a
# Features: asan, tsan, sanitizer, stress, cfacc, debug (the
# runtime checks its invariants: CFA_DEBUG, cfa/debug.h's hooks exist),
# memcached, libmemcached-tools (memccapable, memccp, memccat), and one per
# tool that some tests drive: cmake, ninja, make, valgrind, pkg-config,
# dpkg-deb, vim, gdb.
import os
import shutil
import lit.formats

config.name = "cfa-lite"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cfa", ".test"]
config.excludes = ["Inputs", "include", "lit.cfg.py", "lit.site.cfg.py",
                   "CMakeLists.txt", "README.md"]
config.test_source_root = os.path.dirname(__file__)
if not hasattr(config, "cfa_obj_root"):
    lit_config.fatal("run lit on a build directory's test/ (configured by CMake), "
                     "not on the source tree")
config.test_exec_root = os.path.join(config.cfa_obj_root, "test")

# --- environment: LLVM tools first; keep what the runtime reads -------------
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ["HOME", "TMPDIR", "CFA_STACK_SIZE", "CFA_PREEMPTION_MS", "CFA_STATS",
            "ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# --- sanitizers ---------------------------------------------------------------
san = config.cfa_sanitize
san_flags = ""
timeout_scale = 1
if san:
    san_flags = "-fsanitize=%s -fno-omit-frame-pointer" % san
    timeout_scale = 4
    config.available_features.add("sanitizer")
    if san == "address":
        config.available_features.add("asan")
        # The runtime switches stacks: tell ASan (the runtime annotates its
        # switches); leak checking at exit stays on.
        config.environment.setdefault("ASAN_OPTIONS", "detect_stack_use_after_return=0")
    elif san == "thread":
        config.available_features.add("tsan")
        config.environment.setdefault("TSAN_OPTIONS", "halt_on_error=1:second_deadlock_stack=1")
    else:
        lit_config.fatal("unknown CFA_SANITIZE value %r" % san)

# --- the debug build (CFA_DEBUG) ----------------------------------------------
if getattr(config, "cfa_debug", False):
    config.available_features.add("debug")

# --- stress -------------------------------------------------------------------
try:
    stress = int(lit_config.params.get("stress", "1"))
except ValueError:
    lit_config.fatal("-Dstress wants a repeat count")
if stress < 1:
    lit_config.fatal("-Dstress wants a count >= 1")
if stress > 1:
    config.available_features.add("stress")

# Per-test limit, on top of %timeout in RUN lines (needs psutil). Both
# only catch hangs, so they leave room for slow runs: on 2 CPUs at a load
# average of 35 (two CPU hogs beside other builds),
# test/runtime/processor_churn.c takes 104-110 s of wall time for 6 s of
# CPU.
try:
    import psutil  # noqa: F401
    lit_config.maxIndividualTestTime = int(lit_config.params.get(
        "test_timeout", str(360 * timeout_scale * max(1, min(stress, 10)))))
except ImportError:
    pass

# --- substitutions (longest first: lit substitutes in order) -------------------
cc = "%s -std=gnu17 -O2 -g -Wall -Werror=implicit-function-declaration -D_GNU_SOURCE -I%s %s" % (
    config.cfa_cc, config.cfa_runtime_include, san_flags)
link = "%s %s %s -lpthread %s" % (config.cfa_lib, config.cfa_uring_lib,
                                   config.cfa_hwloc_lib, san_flags)
timeout_s = int(lit_config.params.get("timeout", "300")) * timeout_scale
config.substitutions.append(("%cfa-link", link))
config.substitutions.append(("%cfa-lib", config.cfa_lib))
cfacc = config.cfa_cfacc or "cfacc-not-built"
if getattr(config, "cfa_cfacc_runtime", ""):   # a borrowed cfacc, this build's libraries
    cfacc = "env CFACC_RUNTIME_DIR=%s %s %s" % (config.cfa_cfacc_runtime, cfacc, san_flags)
# %cfacc-path: the binary alone, for CC=... (before %cfacc: a prefix of it).
config.substitutions.append(("%cfacc-path", config.cfa_cfacc or "cfacc-not-built"))
config.substitutions.append(("%cfacc", cfacc))
config.substitutions.append(("%cc", cc))
config.substitutions.append(("%stress", str(stress)))
# -k: a hung test gets SIGTERM, then SIGKILL 10 s later.
config.substitutions.append(("%timeout", "timeout -k 10 %d" % (timeout_s * max(1, min(stress, 10)))))
config.substitutions.append(("%cfa-src", config.cfa_src_root))
config.substitutions.append(("%cfa-obj", config.cfa_obj_root))

if config.cfa_cfacc and os.path.exists(config.cfa_cfacc):
    config.available_features.add("cfacc")
    # The libFuzzer target over stage 1, built on request beside cfacc.
    translate_fuzzer = os.path.join(os.path.dirname(config.cfa_cfacc), "cfacc-translate-fuzz")
    if os.path.exists(translate_fuzzer) and not san:
        config.available_features.add("translate-fuzzer")
        config.substitutions.append(("%translate-fuzzer", translate_fuzzer))
# Tools that some tests drive: build systems, valgrind.
for tool in ["cmake", "ninja", "make", "valgrind", "pkg-config", "dpkg-deb", "vim", "gdb",
             "meson", "autoreconf"]:
    if shutil.which(tool):
        config.available_features.add(tool)

# The memcached tests' peers (scripts/setup.sh installs them): Debian's
# memcached (%memcached) and libmemcached-tools (memccapable, memccp).
memcached = shutil.which("memcached") or ("/usr/bin/memcached" if os.path.exists("/usr/bin/memcached") else None)
if memcached:
    config.available_features.add("memcached")
    config.substitutions.append(("%memcached", memcached))
if shutil.which("memccapable") and shutil.which("memccp") and shutil.which("memccat"):
    config.available_features.add("libmemcached-tools")

if not os.path.exists(config.filecheck):
    lit_config.fatal("FileCheck not found at %s" % config.filecheck)
