#!/usr/bin/env bash
# Installs the Debian packages a profq job needs, when they are missing.
#   scripts/deps.sh build|test|fuzz|bench|demo
# As root it runs apt-get; otherwise it prints the exact apt-get line and fails.
set -euo pipefail
job=${1:-build}

build_pkgs="gcc make pkg-config liblzma-dev zlib1g-dev libzip-dev libsnappy-dev libzstd-dev libdeflate-dev libsqlite3-dev"
case "$job" in
  build) want="$build_pkgs" ;;
  test)  want="$build_pkgs libcmocka-dev clang libclang-rt-14-dev python3 python3-venv python3-pip clang-format chromium" ;;
  fuzz)  want="$build_pkgs clang libclang-rt-14-dev" ;;
  bench) want="$build_pkgs time python3 python3-venv python3-pip" ;;
  demo)  want="$build_pkgs python3 python3-venv python3-pip" ;;
  *) echo "usage: scripts/deps.sh build|test|fuzz|bench|demo" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
  # A tool that is already on PATH (a pyenv python, a newer clang) counts as present.
  case "$p" in
    python3) command -v python3 >/dev/null 2>&1 && continue ;;
    python3-venv) python3 -c 'import venv, ensurepip' >/dev/null 2>&1 && continue ;;
    python3-pip) python3 -m pip --version >/dev/null 2>&1 && continue ;;
    clang) command -v clang >/dev/null 2>&1 && continue ;;
    clang-format) command -v clang-format >/dev/null 2>&1 && continue ;;
    gcc) command -v cc >/dev/null 2>&1 && continue ;;
    make) command -v make >/dev/null 2>&1 && continue ;;
    pkg-config) command -v pkg-config >/dev/null 2>&1 && continue ;;
    time) [ -x /usr/bin/time ] && continue ;;
    chromium) command -v chromium >/dev/null 2>&1 && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

[ -z "$missing" ] && exit 0
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "profq: installing missing Debian packages:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  $line >&2
else
  echo "profq: missing Debian packages:$missing" >&2
  echo "profq: run as root:  $line" >&2
  exit 1
fi
