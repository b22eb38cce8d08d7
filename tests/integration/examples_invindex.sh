#!/usr/bin/env bash
# examples_invindex.sh — examples/invindex.so (whole_text_files, list aggregation, map_values)
# against an index built in Python from the same documents: 40 files of a Zipf-like vocabulary
# (UTF-8 words, tabs, \r\n, an empty file, a file without a final newline, a gzipped file read
# decompressed), in local[2] and local-cluster[2,1,1024]; the part files sorted must equal the
# reference, and stdout must give the document and word counts. A usage error exits 2.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$EX/invindex.so
need "$APP" "$BIN/cspark-executor"
mkdir "$T/docs" "$T/tmp"
export TMPDIR="$T/tmp"

$PY - "$T/docs" "$T/ref.txt" "$T/ref.stdout" <<'PY' || fail "cannot generate the documents"
import gzip, os, random, re, sys
rnd = random.Random(77)
vocab = [f"w{i}" for i in range(3000)] + ["ünïcode", "naïve", "x\x01y", "a-b"]
docs = {}
for i in range(40):
    n = 0 if i == 3 else rnd.randrange(1, 2000)
    words = [vocab[min(int(rnd.paretovariate(1.1)) - 1, len(vocab) - 1)] if rnd.random() < 0.7
             else rnd.choice(vocab) for _ in range(n)]
    text, line = "", []
    for w in words:
        line.append(w)
        if rnd.random() < 0.1:
            text += rnd.choice([" ", "\t", "  "]).join(line) + rnd.choice(["\n", "\r\n"])
            line = []
    text += " ".join(line)
    data = text.encode()
    name = f"doc{i:02d}.txt"
    if i == 5:
        name += ".gz"
        with gzip.open(os.path.join(sys.argv[1], name), "wb") as f:
            f.write(data)
    else:
        with open(os.path.join(sys.argv[1], name), "wb") as f:
            f.write(data)
    docs[name] = data
index = {}
for name, data in docs.items():
    for w in set(re.split(rb"[ \t\n\r\v\f]+", data)) - {b""}:
        index.setdefault(w, []).append(name.encode())
with open(sys.argv[2], "wb") as f:
    for w in sorted(index):
        f.write(w + b"\t" + b" ".join(sorted(index[w])) + b"\n")
with open(sys.argv[3], "w") as f:
    f.write(f"{len(docs)} documents, {len(index)} words\n")
PY

for master in 'local[2]' 'local-cluster[2,1,1024]'; do
    out="$T/out-${master%%[*}"
    submit_ok "$master" "$APP" "$T/docs" "$out"
    cat_parts "$out" | sort >"$T/got.txt"
    assert_files_eq "$T/got.txt" "$T/ref.txt" "$master: the index differs from the reference"
    assert_files_eq "$T/stdout" "$T/ref.stdout" "$master: summary"
done
[ "$(count_parts "$T/out-local")" -ge 2 ] || fail "local[2] wrote fewer than 2 non-empty parts"

rc=0
run_submit 'local[1]' "$APP" "$T/docs" || rc=$?
[ $rc -eq 2 ] || fail "invindex.so with one argument exited $rc, want 2"
assert_contains "$T/stderr" "usage: invindex.so" "usage message"
log "ok ($(cat "$T/ref.stdout"))"
