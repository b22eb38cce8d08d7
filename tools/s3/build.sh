#!/usr/bin/env bash
# build.sh — builds, once per pin, the S3 server the tests run: versitygw (an S3 gateway over a
# posix directory, Apache-2.0) at the version tools/s3/go.mod pins, checked against go.sum. The
# binary is cached as <build>/s3-bin/<key>/versitygw, key = hash of go.mod, go.sum and the Go
# version, so a changed pin rebuilds and an unchanged one costs nothing; Go's module and build
# caches stay where `go env` puts them. Prints the binary's path.
# Usage: tools/s3/build.sh BUILD_DIR
# Needs the Go toolchain (1.25 or newer) and the Go module proxy on the first build.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:?usage: build.sh BUILD_DIR}
mkdir -p "$BUILD" && BUILD=$(cd "$BUILD" && pwd)
command -v go >/dev/null 2>&1 || { echo "tools/s3/build.sh: the Go toolchain (go) is needed to build the S3 server" >&2; exit 3; }
key=$({ cat "$ROOT/tools/s3/go.mod" "$ROOT/tools/s3/go.sum"; go version; } | sha256sum | cut -c1-16)
out="$BUILD/s3-bin/$key/versitygw"
if [ ! -x "$out" ]; then
    mkdir -p "$BUILD/s3-bin/$key"
    # one build at a time per build directory (tests start servers in parallel)
    exec 9>"$BUILD/s3-bin/.lock"
    flock 9
    if [ ! -x "$out" ]; then
        echo "tools/s3/build.sh: building versitygw ($(grep 'versity/versitygw v' "$ROOT/tools/s3/go.mod" | awk '{print $NF}')) into $out (once per pin)" >&2
        start=$(date +%s)
        (cd "$ROOT/tools/s3" && GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -o "$out.tmp" github.com/versity/versitygw/cmd/versitygw) >&2
        mv "$out.tmp" "$out"
        echo "tools/s3/build.sh: built in $(( $(date +%s) - start )) s" >&2
    fi
fi
echo "$out"
