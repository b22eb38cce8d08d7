#!/usr/bin/env bash
# install-deps.sh — installs, with apt-get, the Debian packages cspark needs to build, test and
# benchmark, and with npm the pinned test tools of tests/browser (playwright-core, which drives
# Debian's chromium). Idempotent: what is already present is skipped, so a second run changes
# nothing. Called by `make run`, `make test` and `.ci/run`; safe to run by hand (needs root or
# sudo for apt-get).
set -euo pipefail

packages=(
  build-essential cmake pkg-config clang clang-format libclang-rt-14-dev
  libcurl4-openssl-dev libssl-dev libmicrohttpd-dev libjansson-dev libyaml-dev libuv1-dev
  libprotobuf-c-dev protobuf-c-compiler liblz4-dev libzstd-dev libxxhash-dev libcmocka-dev
  zlib1g-dev libbz2-dev libxml2-dev libarchive-dev
  python3 python3-kubernetes python3-distributed python3-pytest kubernetes-client
  gawk coreutils procps iproute2 util-linux openssl gzip bzip2 zstd lz4 curl ca-certificates
  chromium prometheus nodejs
  mmdebstrap skopeo
)
# mmdebstrap builds the image's Debian root filesystem (scripts/image, `make image`); skopeo checks the
# OCI archive it writes (tests/kubesim/image_oci.sh).

# The real control plane of the *_real tests (scripts/k8s-up) is built from Go modules with the Go
# toolchain (1.24 or newer, not Debian 12's), which the development and CI machines carry.
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# kubectl and node may come from elsewhere on the machine; only ask Debian for them when absent.
if command -v kubectl >/dev/null 2>&1; then
  missing=("${missing[@]/kubernetes-client/}")
fi
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  missing=("${missing[@]/nodejs/}")
elif ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
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
browser_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/browser"
want=$(sed -n 's/.*"playwright-core": "\(.*\)".*/\1/p' "$browser_dir/package.json")
have=$(sed -n 's/.*"version": "\(.*\)".*/\1/p' \
  "$browser_dir/node_modules/playwright-core/package.json" 2>/dev/null | head -1 || true)
if [ "$have" != "$want" ]; then
  echo "install-deps: npm ci in tests/browser (playwright-core $want)" >&2
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$browser_dir" --no-audit --no-fund \
    --loglevel=error >/dev/null
fi
