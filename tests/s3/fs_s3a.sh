#!/usr/bin/env bash
# fs_s3a.sh — runs tests/s3/s3a_fs_live (src/fs's s3a file system: listing, ranged reads,
# multipart writers and their commits, compressed objects, errors) against a fresh S3 server.
# Usage: fs_s3a.sh BUILD_DIR
set -u
BUILD=$(cd "$1" && pwd)
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CSPARK_BUILD_DIR=$BUILD S3_RUN_BUCKET=live "$SRC/scripts/s3-run" "$BUILD/tests/s3/s3a_fs_live"
