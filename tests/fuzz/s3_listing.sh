#!/usr/bin/env bash
# Builds the S3 listing page fuzzer (clang -fsanitize=fuzzer,address,undefined) against
# src/fs/fs_s3a.c (included by the target) and the s3a and fs sources it links with, and runs it
# for ~20 s from a seed corpus of ListObjectsV2 answers. $1 = build directory. It runs in both CI
# passes, as the other fuzzers do.
set -euo pipefail
BUILD=${1:?usage: s3_listing.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "SKIP: s3_listing: clang is required (scripts/install-deps.sh)"; exit 77; }
OUT="$BUILD/fuzz/s3_listing"
mkdir -p "$OUT/corpus"
S="$SRC/src"
SOURCES=("$S/fs/s3a_client.c" "$S/fs/s3a_conf.c" "$S/fs/s3a_reader.c" "$S/fs/s3a_writer.c"
  "$S/fs/fs.c" "$S/fs/fs_local.c" "$S/fs/codec.c" "$S/common/conf.c" "$S/common/conf_entries.c"
  "$S/common/conf_k8s_keys.c" "$S/common/resource_conf.c" "$S/common/master.c" "$S/common/err.c"
  "$S/common/log.c" "$S/common/strutil.c" "$S/common/sync.c" "$S/common/hmap.c"
  "$S/common/curl_pool.c" "$S/common/fsutil.c")
PKGS="libxml-2.0 libcurl openssl jansson liblz4 libzstd zlib"
clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$S" -I"$SRC/include" $(pkg-config --cflags $PKGS) "$SRC/tests/fuzz/s3_listing_fuzz.c" \
  "${SOURCES[@]}" $(pkg-config --libs $PKGS) -lbz2 -lpthread -lm -o "$OUT/s3_listing_fuzz"
# seeds: a truncated page with keys and prefixes, a last page, an error document, an entity
cat >"$OUT/corpus/page" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>in/</Prefix><KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated><Contents><Key>in/a.txt</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>"x"</ETag><Size>12</Size><StorageClass>STANDARD</StorageClass></Contents><Contents><Key>in/sub/../../secret</Key><Size>3</Size></Contents><CommonPrefixes><Prefix>in/d/</Prefix></CommonPrefixes><NextContinuationToken>1/abc==</NextContinuationToken></ListBucketResult>
XML
printf '%s' '<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>k</Key><Size>18446744073709551615</Size></Contents></ListBucketResult>' >"$OUT/corpus/last"
printf '%s' '<?xml version="1.0"?><Error><Code>PermanentRedirect</Code><Message>m</Message><Region>eu-west-1</Region></Error>' >"$OUT/corpus/error"
printf '%s' '<!DOCTYPE l [<!ENTITY x SYSTEM "file:///etc/passwd">]><ListBucketResult><Contents><Key>&x;</Key></Contents></ListBucketResult>' >"$OUT/corpus/entity"
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./s3_listing_fuzz -max_total_time=20 -error_exitcode=1 -max_len=8192 -rss_limit_mb=2048 \
  -print_final_stats=1 corpus 2>&1 | tail -n 15
# libFuzzer exits non-zero on a crash, leak or abort; pipefail carries it
