#!/usr/bin/env bash
# install-deps.sh — installs, with apt-get, the Debian packages cspark needs, and with npm the pinned
# test tools of tests/browser (playwright-core, which drives Debian's chromium). Idempotent: what is
# already present is skipped, so a second run changes nothing. Safe to run by hand (needs root or
# sudo for apt-get).
#
#   scripts/install-deps.sh [SET...]          SET: core, image, k8s, test, all (the default)
#   scripts/install-deps.sh --list [SET...]   prints the sets' Debian packages, one a line
#
#   core   building libcspark, cspark-submit, the examples and the data generators, and running them
#          (`make run`, `make build` before anything else)
#   image  core + what builds the image cspark:dev without a container engine (`make image`:
#          mmdebstrap makes its Debian root filesystem; skopeo checks the OCI archive it writes)
#   k8s    image + what starts and drives the real control plane on this machine (`make k8s`,
#          scripts/k8s-up, scripts/k8s-run): kubectl, ip, unshare, openssl, curl
#   test   everything the whole suite uses (`make test`, .ci/run): the sets above, clang and its
#          sanitizer runtime (fuzzers), Python clients, Dask, Chromium, Prometheus, Node and npm
#   all    the same as test
# The real control plane (scripts/k8s-up) is built from Go modules with the Go toolchain (1.24 or
# newer, not Debian 12's), which the development and CI machines carry: no set installs it.
set -euo pipefail

core=(
  build-essential cmake pkg-config
  libcurl4-openssl-dev libssl-dev libmicrohttpd-dev libjansson-dev libyaml-dev libuv1-dev
  libprotobuf-c-dev protobuf-c-compiler liblz4-dev libzstd-dev libxxhash-dev libcmocka-dev
  zlib1g-dev libbz2-dev libxml2-dev libarchive-dev libcrypt-dev libsnappy-dev libpcre2-dev
  libnghttp2-dev libicu-dev
  gawk coreutils
)
image=(mmdebstrap skopeo python3 python3-pip) # pip: the image's PySpark client (install-pyspark-client.sh image)
k8s=(kubernetes-client iproute2 util-linux openssl curl ca-certificates)
test=(
  clang clang-format libclang-rt-14-dev
  python3 python3-kubernetes python3-distributed python3-pytest
  procps gzip bzip2 zstd lz4
  chromium prometheus nodejs
)

list=0
[ "${1:-}" = --list ] && { list=1; shift; }
want=()
browser=0
[ $# -gt 0 ] || set -- all
for set in "$@"; do
  case "$set" in
  core) want+=("${core[@]}") ;;
  image) want+=("${core[@]}" "${image[@]}") ;;
  k8s) want+=("${core[@]}" "${image[@]}" "${k8s[@]}") ;;
  test | all) want+=("${core[@]}" "${image[@]}" "${k8s[@]}" "${test[@]}"); browser=1 ;;
  *) echo "install-deps: unknown set '$set' (expected core, image, k8s, test or all)" >&2; exit 2 ;;
  esac
done

if [ "$list" = 1 ]; then
  printf '%s\n' "${want[@]}" | sort -u
  exit 0
fi

missing=()
for p in $(printf '%s\n' "${want[@]}" | sort -u); do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# kubectl and node may come from elsewhere on the machine; only ask Debian for them when absent.
if command -v kubectl >/dev/null 2>&1; then
  missing=("${missing[@]/kubernetes-client/}")
fi
if [ "$browser" = 1 ]; then
  if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    missing=("${missing[@]/nodejs/}")
  elif ! command -v npm >/dev/null 2>&1; then
    missing+=(npm)
  fi
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# tests/browser: playwright-core at the version its package-lock.json pins (no browser download:
# the tests drive Debian's /usr/bin/chromium)
[ "$browser" = 1 ] || exit 0
browser_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/browser"
pin=$(sed -n 's/.*"playwright-core": "\(.*\)".*/\1/p' "$browser_dir/package.json")
have=$(sed -n 's/.*"version": "\(.*\)".*/\1/p' \
  "$browser_dir/node_modules/playwright-core/package.json" 2>/dev/null | head -1 || true)
if [ "$have" != "$pin" ]; then
  echo "install-deps: npm ci in tests/browser (playwright-core $pin)" >&2
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$browser_dir" --no-audit --no-fund \
    --loglevel=error >/dev/null
fi
