#!/usr/bin/env bash
# archive_zip_bomb.sh — --archives had no size cap (issue 21 item 15): a 1 MB zip unpacked to
# 1 GiB in every process, with no warning. Now each archive unpacks to at most
# cspark.archives.maxUnpackedBytes (set to 1m here): a zip of 4 MiB of zeros (4 KiB packed), a
# zip of three 512 KiB files, a zip whose headers claim 100 bytes for 4 MiB of data, and a
# .tar.gz of 4 MiB each fail the application on local[2] and local-cluster[1,1,512] with one line
# naming the archive, the key and the limit, and leave nothing in spark.local.dir; a zip within
# the cap still unpacks.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOB=$BUILD/tests/jobs/filesjob.so
need "$JOB"
mkdir -p "$T/in/inner" "$T/local"
printf 'alpha,5\nbeta,7\ngamma,30\n' >"$T/in/lookup.csv"
"$PY" - "$T/in" <<'EOF' || fail "cannot build the archives"
import struct, sys, tarfile, zipfile
d = sys.argv[1]
def zip_of(name, entries):
    with zipfile.ZipFile(f"{d}/{name}", "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in entries:
            z.writestr(n, data)
zip_of("bomb.zip", [("inner/hello.txt", "hello from the archive\n"), ("zeros.bin", bytes(4 << 20))])
zip_of("many.zip", [(f"part{i}.bin", bytes(512 << 10)) for i in range(3)])
zip_of("small.zip", [("inner/hello.txt", "hello from the archive\n"), ("zeros.bin", bytes(512 << 10))])
# lying.zip: zeros.bin's local and central headers say 100 bytes; its data is 4 MiB
zip_of("lying.zip", [("zeros.bin", bytes(4 << 20))])
b = bytearray(open(f"{d}/lying.zip", "rb").read())
struct.pack_into("<I", b, 22, 100)                        # local header: uncompressed size
cd = b.rfind(b"PK\x01\x02")
struct.pack_into("<I", b, cd + 24, 100)                   # central directory: uncompressed size
open(f"{d}/lying.zip", "wb").write(b)
with open(f"{d}/zeros.bin", "wb") as f:
    f.write(bytes(4 << 20))
with tarfile.open(f"{d}/bomb.tar.gz", "w:gz") as t:
    t.add(f"{d}/zeros.bin", "zeros.bin")
EOF
[ "$(stat -c %s "$T/in/bomb.zip")" -lt 65536 ] || fail "bomb.zip is not small"
SUBMIT_OPTS=(--conf spark.local.dir="$T/local" --conf spark.ui.enabled=false
    --conf cspark.archives.maxUnpackedBytes=1m)

for master in "local[2]" "local-cluster[1,1,512]"; do
    for bomb in bomb.zip many.zip lying.zip bomb.tar.gz; do
        rc=0
        run_submit "$master" --files "$T/in/lookup.csv" --archives "$T/in/$bomb" "$JOB" "$bomb" || rc=$?
        [ $rc -eq 1 ] || fail "$master $bomb: exit status $rc: $(tail -3 "$T/stderr")"
        [ "$(grep -Evc '^(INFO|WARN) ' "$T/stderr")" -eq 1 ] || fail "$master $bomb: not one line: $(cat "$T/stderr")"
        want="^cspark-submit: .*spark.archives: cannot fetch $T/in/$bomb: $T/in/$bomb: unpacks to more than 1048576 bytes at entry '[^']*' \(the limit cspark.archives.maxUnpackedBytes sets; raise it to unpack this archive\)\$"
        grep -Ev '^(INFO|WARN) ' "$T/stderr" | grep -Eq "$want" || fail "$master $bomb: $(grep -Ev '^(INFO|WARN) ' "$T/stderr")"
        grep -q '^task' "$T/stdout" && fail "$master $bomb: the job ran"
        [ -z "$(ls -A "$T/local")" ] || fail "$master $bomb: left in spark.local.dir: $(find "$T/local" | head -5)"
        echo "ok $master $bomb: $(grep -Ev '^(INFO|WARN) ' "$T/stderr")"
    done
done
# within the cap: unpacked as before
submit_ok "local[2]" --files "$T/in/lookup.csv" --archives "$T/in/small.zip" "$JOB" small.zip
grep -q '^task 0 sum=42 archive=hello from the archive$' "$T/stdout" || fail "small.zip: $(cat "$T/stdout")"
[ -z "$(ls -A "$T/local")" ] || fail "small.zip: left in spark.local.dir: $(ls -A "$T/local")"
# the key is checked as a size before anything runs
SUBMIT_OPTS=(--conf spark.local.dir="$T/local" --conf cspark.archives.maxUnpackedBytes=lots)
rc=0
run_submit "local[2]" --archives "$T/in/small.zip" "$JOB" small.zip || rc=$?
assert_eq "$rc" 1 "maxUnpackedBytes=lots: exit status"
assert_eq "$(cat "$T/stderr")" "cspark-submit: invalid value for cspark.archives.maxUnpackedBytes: 'lots' (expected a size such as 512m or 2g)" "maxUnpackedBytes=lots"
echo "PASS: $TEST_NAME"
