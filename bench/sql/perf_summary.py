"""perf_summary.py — where a profiled process spent its CPU, from `perf script -F ip,sym,dso` of a
`perf record --call-graph dwarf` profile: the functions with the most samples of their own
(self %), the cspark functions with the most samples under them (inclusive %), and the samples
put into a few areas (allocator, memory copies, shuffle file creation, other opens, LZ4, kernel,
the rest) by the stack they were taken in. Used by bench/sql/profile.sh; plain python3.

    perf_summary.py PERF_SCRIPT.txt [TOP]      (TOP: rows per list, default 20)
"""
import collections
import re
import sys

ALLOCATOR = ("_int_malloc", "_int_free", "unlink_chunk", "malloc_consolidate", "cfree", "malloc",
             "__libc_calloc", "_int_memalign", "_mid_memalign", "__libc_free", "free", "calloc",
             "realloc", "_int_realloc", "__libc_malloc", "tcache")


def samples(path):
    """Each sample's stack, leaf first; a kernel leaf is marked with '[k]'."""
    stack = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if stack:
                    yield stack
                stack = []
                continue
            if not line[0].isspace():
                stack = []
                continue
            parts = line.strip().split(None, 1)
            if len(parts) != 2:
                continue
            sym = re.sub(r"\+0x[0-9a-f]+$", "", parts[1].rsplit(" (", 1)[0])
            if not stack and "kernel.kallsyms" in parts[1]:
                sym = "[k]" + sym
            stack.append(sym)
    if stack:
        yield stack


def area(stack):
    leaf = stack[0]
    if any("cs_temp_file_beside" in f for f in stack):
        return "shuffle write: creating the temporary data/index files"
    if any(f.startswith("__libc_open") or f == "local_open" for f in stack):
        return "shuffle read: open() of index and data files per block"
    if any(leaf.startswith(m) for m in ALLOCATOR):
        return "malloc/free"
    if leaf.startswith("LZ4_compress"):
        return "LZ4 compression (shuffle write)"
    if leaf.startswith("LZ4_decompress"):
        return "LZ4 decompression (shuffle read)"
    if leaf.startswith("__mem"):
        return "memmove/memset/memcmp"
    if leaf.startswith("[k]"):
        return "kernel, other"
    return "the engine's own code (operators, decoding, hashing)"


def main(argv):
    if not argv:
        print("usage: perf_summary.py PERF_SCRIPT.txt [TOP]", file=sys.stderr)
        return 2
    top = int(argv[1]) if len(argv) > 1 else 20
    n = 0
    own, under, areas = collections.Counter(), collections.Counter(), collections.Counter()
    for stack in samples(argv[0]):
        n += 1
        own[stack[0]] += 1
        for f in set(stack):
            under[f.replace("[k]", "")] += 1
        areas[area(stack)] += 1
    if n == 0:
        print("perf_summary: no samples in %s" % argv[0], file=sys.stderr)
        return 1
    pct = lambda k: "%5.1f%%" % (100.0 * k / n)  # noqa: E731
    print("%d samples" % n)
    print("\n-- areas")
    for k, v in areas.most_common():
        print(pct(v), k)
    print("\n-- self")
    for k, v in own.most_common(top):
        print(pct(v), k)
    print("\n-- inclusive (cspark functions)")
    shown = 0
    for k, v in under.most_common():
        if k.startswith("cs_") or re.match(r"^[a-z_]+_(next|batch|partition|add)$", k):
            print(pct(v), k)
            shown += 1
            if shown == top:
                break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
