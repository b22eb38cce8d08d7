#!/usr/bin/env bash
# image_oci.sh — the image `make image` builds (scripts/image) is deploy/Dockerfile's, as an OCI image
# archive that container tools accept:
#  1. skopeo reads the archive: two layers, and the config the Dockerfile says (USER 185, ENTRYPOINT
#     /opt/entrypoint.sh, WORKDIR, ENV SPARK_HOME, PATH, LD_LIBRARY_PATH);
#  2. skopeo copies it into an OCI layout (every blob checked against its digest); each layer's
#     uncompressed digest is the config's diff_id, and its file list is the unpacked layer's that
#     the node agents run (<build>/image/cspark-dev/layers/N);
#  3. the recipe: the packages the Dockerfile installs are in the image, user 185 exists and owns
#     /opt/spark/work-dir, /opt/entrypoint.sh is deploy/entrypoint.sh, the binaries are the build's;
#  4. a Dockerfile the image script cannot follow is refused in one line naming the instruction and
#     its line, with nothing written; a second build reuses the cached Debian layer.
# Usage: tests/kubesim/image_oci.sh BUILD_DIR
# ctest-labels: no-asan (it checks the image script's packaging, no cspark program runs: the
# sanitizer pass would repeat it)
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd) || { echo "FAIL: no build dir" >&2; exit 1; }
ROOT=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
ARCHIVE=$BUILD/image/cspark-dev.oci.tar
IMG=$BUILD/image/cspark-dev
if [ ! -f "$ARCHIVE" ] || [ ! -f "$IMG/config.json" ]; then
    echo "SKIP: image_oci: no image in $BUILD/image (make image; scripts/image says why it could not build)" >&2
    exit 77
fi
command -v skopeo >/dev/null || { echo "SKIP: image_oci: skopeo is not installed (scripts/install-deps.sh)" >&2; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: image_oci: $*" >&2; exit 1; }
PY=/usr/bin/python3

# 1. skopeo reads it
skopeo inspect "oci-archive:$ARCHIVE" >"$T/inspect.json" 2>"$T/err" || fail "skopeo inspect: $(cat "$T/err")"
skopeo inspect --config "oci-archive:$ARCHIVE" >"$T/config.json" 2>"$T/err" || fail "skopeo inspect --config: $(cat "$T/err")"
$PY - "$T/inspect.json" "$T/config.json" <<'EOF' || fail "the image's configuration is not the Dockerfile's"
import json, sys
ins, cfg = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
c = cfg["config"]
env = dict(e.split("=", 1) for e in c["Env"])
checks = [(len(ins["Layers"]) == 2, "two layers: %s" % ins["Layers"]),
          (cfg["os"] == "linux" and cfg["architecture"], "os/architecture"),
          (c.get("User") == "185", "USER 185: %s" % c.get("User")),
          (c.get("Entrypoint") == ["/opt/entrypoint.sh"], "ENTRYPOINT: %s" % c.get("Entrypoint")),
          (c.get("WorkingDir") == "/opt/spark/work-dir", "WORKDIR: %s" % c.get("WorkingDir")),
          (env.get("SPARK_HOME") == "/opt/spark", "SPARK_HOME"),
          (env.get("LD_LIBRARY_PATH") == "/opt/spark/lib", "LD_LIBRARY_PATH"),
          (env.get("PATH", "").startswith("/opt/spark/bin:/usr/local/sbin:"), "PATH: %s" % env.get("PATH")),
          (len(cfg["rootfs"]["diff_ids"]) == 2, "diff_ids"),
          (len([h for h in cfg["history"] if not h.get("empty_layer")]) == 2, "history without empty layers")]
bad = [m for ok, m in checks if not ok]
if bad:
    print("config: " + "; ".join(bad), file=sys.stderr)
    sys.exit(1)
EOF

# 2. a copy checks every blob; the layers are what the node agents run
skopeo copy -q "oci-archive:$ARCHIVE" "oci:$T/layout:cspark:dev" 2>"$T/err" || fail "skopeo copy: $(cat "$T/err")"
$PY - "$T/layout" "$IMG" <<'EOF' || fail "the archive's layers differ from the unpacked image"
import gzip, hashlib, json, os, sys, tarfile
layout, img = sys.argv[1], sys.argv[2]
blob = lambda d: os.path.join(layout, "blobs", "sha256", d.split(":")[1])
index = json.load(open(os.path.join(layout, "index.json")))
manifest = json.load(open(blob(index["manifests"][0]["digest"])))
config = json.load(open(blob(manifest["config"]["digest"])))
if json.load(open(os.path.join(img, "config.json"))) != config:
    sys.exit("the unpacked image's config.json is not the archive's config")
for i, layer in enumerate(manifest["layers"]):
    with gzip.open(blob(layer["digest"])) as f:
        data = f.read()
    if "sha256:" + hashlib.sha256(data).hexdigest() != config["rootfs"]["diff_ids"][i]:
        sys.exit("layer %d: its uncompressed digest is not the config's diff_id" % i)
    with tarfile.open(fileobj=__import__("io").BytesIO(data)) as t:
        in_tar = {m.name.rstrip("/"): (m.uid, m.mode & 0o7777, m.type) for m in t.getmembers()}
    root = os.path.join(img, "layers", str(i))
    on_disk = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            on_disk[os.path.relpath(p, root)] = (st.st_uid, st.st_mode & 0o7777)
    if set(in_tar) != set(on_disk):
        diff = sorted(set(in_tar) ^ set(on_disk))[:10]
        sys.exit("layer %d: %d entries in the archive, %d unpacked; e.g. %s" % (i, len(in_tar), len(on_disk), diff))
    wrong = [n for n in in_tar if in_tar[n][:2] != on_disk[n]]
    if wrong:
        sys.exit("layer %d: owner or mode differs for %s" % (i, wrong[:5]))
EOF

# 3. the recipe
L0=$IMG/layers/0 L1=$IMG/layers/1
want=$(sed -n '/^FROM debian:.*-slim/,$p' "$ROOT/deploy/Dockerfile" | tr '\\\n' '  ' |
    sed -n 's/.*apt-get install \([^&]*\)&&.*/\1/p' | tr ' ' '\n' | grep -v '^-' | grep .)
[ -n "$want" ] || fail "no apt-get install in the Dockerfile's runtime stage"
have=$(dpkg-query --admindir="$L0/var/lib/dpkg" -W -f '${Package}\n')
# a here-string, not `echo | grep -q`: under pipefail grep's early exit can fail echo's later
# writes (bash writes a line at a time) and the pipeline with it
for p in $want; do grep -qx "$p" <<<"$have" || fail "package $p of the Dockerfile is not in the image"; done
grep -q '^spark:x:185:' "$L0/etc/passwd" || fail "no user spark with uid 185"
[ "$(stat -c %u "$L0/opt/spark/work-dir")" = 185 ] || fail "/opt/spark/work-dir is not owned by 185"
cmp -s "$L1/opt/entrypoint.sh" "$ROOT/deploy/entrypoint.sh" || fail "/opt/entrypoint.sh is not deploy/entrypoint.sh"
[ -x "$L1/opt/entrypoint.sh" ] || fail "/opt/entrypoint.sh is not executable"
for b in cspark-submit cspark-executor; do
    [ -x "$L1/opt/spark/bin/$b" ] || fail "/opt/spark/bin/$b missing"
done
[ -f "$L1/opt/spark/lib/libcspark.so" ] && [ -f "$L1/opt/spark/examples/wordcount.so" ] || fail "library or examples missing"
cmp -s "$L1/opt/spark/examples/wordcount.so" "$BUILD/examples/wordcount.so" || fail "the examples are not this build's"

# 4. a Dockerfile the script cannot follow; the cache
sed 's/^USER 185$/EXPOSE 4040\nUSER 185/' "$ROOT/deploy/Dockerfile" >"$T/Dockerfile.expose"
line=$(grep -n '^EXPOSE' "$T/Dockerfile.expose" | cut -d: -f1)
rc=0
/usr/bin/python3 "$ROOT/scripts/image" --build "$BUILD" --dockerfile "$T/Dockerfile.expose" --out "$T/out1" \
    >"$T/expose.out" 2>&1 || rc=$?
[ $rc -ne 0 ] || fail "a Dockerfile with EXPOSE was built"
[ "$(grep -c . "$T/expose.out")" = 1 ] && grep -q "line $line: EXPOSE is not supported" "$T/expose.out" ||
    fail "EXPOSE not refused in one line naming it: $(cat "$T/expose.out")"
[ ! -e "$T/out1" ] || fail "a refused Dockerfile left $T/out1 behind"
cache=$(dirname "$(readlink "$IMG/layers/0")")
/usr/bin/python3 "$ROOT/scripts/image" --build "$BUILD" --cache "$(dirname "$cache")" --out "$T/out2" \
    >"$T/again.out" 2>&1 || fail "a second build failed: $(cat "$T/again.out")"
grep -q "building the Debian layer" "$T/again.out" && fail "a second build did not reuse the cached Debian layer"
[ "$(readlink "$T/out2/cspark-dev/layers/0")" = "$(readlink "$IMG/layers/0")" ] || fail "the second build has another Debian layer"
echo "PASS: image_oci"
