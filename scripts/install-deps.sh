#!/usr/bin/env bash
# Installs the Debian packages iapscreen builds against, when they are missing.
# Needs the Swift toolchain already on PATH. Safe to run again: installs nothing twice.
# libsodium-dev: the desk's password hashes (Argon2id) and session tokens (Sources/DeskSecurity).
set -euo pipefail

# --test-tools: also what the tests read the outputs with: headless Chromium, which the
# report.html tests (and the screenshot script) open the page in; chromium-driver (its
# chromedriver, the same version), through which the desk's tests drive that browser over
# WebDriver (Tests/WebDriverSupport); Prometheus' own
# text-format parser (python3-prometheus-client, for Debian's /usr/bin/python3), which
# reads the --metrics file; util-linux's `script`, a terminal for the progress line;
# the PostgreSQL 15 server, a cluster of which the PostgreSQL tests start (scripts/postgres-test-cluster.sh).
# CI passes it; tests that need them skip without them off CI. (--browser, the old name, does the same.)
# --fuzz: also what the libFuzzer harnesses (Fuzz/run.sh) link that a plain build does not:
# libFuzzer is C++, so the C++ library's development files for the GCC that the toolchain's
# clang links with (libstdc++-12-dev on Debian 12). The libFuzzer runtime itself ships with
# the Swift toolchain; this checks that it is there. CI passes it.
packages=(libxml2-dev zlib1g-dev libisal-dev libssl-dev libsqlite3-dev libpq-dev libmimalloc-dev libsodium-dev
          libmicrohttpd-dev pkg-config)
fuzz=0
for arg in "$@"; do
  case "$arg" in
    --test-tools|--browser) packages+=(chromium chromium-driver python3-prometheus-client bsdutils postgresql-15) ;;
    --fuzz)
      fuzz=1
      # The newest /usr/lib/gcc/<triple>/<version>, as clang picks it (Debian 12: 12).
      gcc_version=$(ls -d /usr/lib/gcc/"$(uname -m)"-linux-gnu/*/ 2>/dev/null | sort -V | tail -1 | xargs -r basename)
      packages+=("libstdc++-${gcc_version:-12}-dev")
      ;;
    *) echo "usage: scripts/install-deps.sh [--test-tools] [--fuzz]" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    sudo=""
  elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "iapscreen needs these Debian packages: ${missing[*]}" >&2
    echo "Install them as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "Installing ${missing[*]} ..." >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "The Swift toolchain (swift 6.x) is not on PATH; install it first (https://swift.org/install)." >&2
  exit 1
fi

if [ "$fuzz" = 1 ]; then
  toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
  if ! ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer-"$(uname -m)".a >/dev/null 2>&1; then
    echo "This Swift toolchain ($toolchain) has no libFuzzer runtime (lib/clang/*/lib/linux/libclang_rt.fuzzer-$(uname -m).a);" >&2
    echo "the swift.org toolchains ship it: install one of those to build Fuzz/." >&2
    exit 1
  fi
fi
