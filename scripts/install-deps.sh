#!/usr/bin/env bash
# install-deps.sh — installs, with apt-get, the Debian packages cspark needs to build, test and
# benchmark. Idempotent: packages already present are skipped, so a second run changes nothing.
# Called by `make run`, `make test` and `.ci/run`; safe to run by hand (needs root or sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config clang clang-format libclang-rt-14-dev
  libcurl4-openssl-dev libssl-dev libmicrohttpd-dev libjansson-dev libyaml-dev libuv1-dev
  libprotobuf-c-dev protobuf-c-compiler liblz4-dev libzstd-dev libxxhash-dev libcmocka-dev
  zlib1g-dev libbz2-dev libxml2-dev
  python3 python3-kubernetes python3-distributed python3-pytest kubernetes-client
  gawk coreutils procps iproute2 util-linux openssl gzip bzip2 zstd lz4 curl
)

# The real control plane of the *_real tests (scripts/k8s-up) is built from Go modules with the Go
# toolchain (1.24 or newer, not Debian 12's), which the development and CI machines carry.
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# kubectl may come from elsewhere on the machine; only ask Debian for it when absent.
if command -v kubectl >/dev/null 2>&1; then
  missing=("${missing[@]/kubernetes-client/}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
