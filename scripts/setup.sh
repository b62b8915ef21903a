#!/usr/bin/env bash
# Installs what cfa-lite needs to build and test, and nothing else.
#
# Idempotent and fast: when everything is present it only runs dpkg-query
# and `command -v`, and never touches the network. `apt-get update` runs
# only when a Debian package is missing. Works as root or through sudo.
#
#   scripts/setup.sh           install what is missing
#   scripts/setup.sh --check   only report what is missing (exit 1 if any)
set -euo pipefail

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

# Debian 12 (bookworm) has LLVM 19 in main.
apt_packages=(
  clang-19 libclang-19-dev llvm-19-dev llvm-19-tools libclang-rt-19-dev
  liburing-dev libhwloc-dev ninja-build cmake make pkg-config
  valgrind  # valgrind/valgrind.h: the runtime registers its stacks with memcheck
  gdb       # test/tools: the runtime's gdb extension
  file      # test/run/static_link.test: is the program statically linked
  autoconf automake meson  # test/install: projects built with CC=cfacc
  memcached libmemcached-tools  # test/memcached: the peer and its protocol checker
  spin      # make verify: the idle-sleep protocol model
  libsqlite3-dev  # test/pthread/sqlite_threads.c: SQLite's own locks on user threads
)

say() { printf 'setup: %s\n' "$*"; }

missing=()
for p in "${apt_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

# lit comes from PyPI. Any python3 that can import it will do (a pyenv or
# venv python, or the system one).
have_lit() { command -v lit >/dev/null 2>&1 || python3 -c 'import lit' >/dev/null 2>&1; }
need_lit=0
have_lit || need_lit=1
need_pip=0
if [ $need_lit = 1 ] && ! python3 -m pip --version >/dev/null 2>&1; then
  need_pip=1
  missing+=(python3-pip)
fi

if [ ${#missing[@]} = 0 ] && [ $need_lit = 0 ]; then
  exit 0
fi

if [ $check_only = 1 ]; then
  [ ${#missing[@]} -gt 0 ] && say "missing Debian packages: ${missing[*]}"
  [ $need_lit = 1 ] && say "missing: lit (PyPI)"
  exit 1
fi

sudo=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { say "not root and no sudo: install ${missing[*]} by hand"; exit 1; }
  sudo=(sudo)
fi

if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq </dev/null
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

if [ $need_lit = 1 ]; then
  say "installing lit (pip)"
  pip=(python3 -m pip install --quiet --disable-pip-version-check)
  # A system python on Debian 12 is "externally managed" (PEP 668): pip
  # refuses without --break-system-packages. A pyenv or venv python is not.
  if python3 -c 'import sys,sysconfig,os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"),"EXTERNALLY-MANAGED")) else 1)'; then
    pip+=(--break-system-packages)
  fi
  # Install for the user running the build; as root a system python puts
  # lit in /usr/local/bin.
  "${pip[@]}" lit </dev/null
  hash -r
  have_lit || { say "lit still not importable after pip install"; exit 1; }
fi
say "done"
