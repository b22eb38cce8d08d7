#!/usr/bin/env python3
"""pair_ops.py — the reference for tests/integration/pair_ops.sh, computed without cspark.

  pair_ops.py gen DIR           writes DIR/a.tsv, DIR/b.tsv and DIR/docs/*.txt
  pair_ops.py check DIR OUTDIR  compares each OUTDIR/<op>.txt written by tests/jobs/pairops.c
                                with what the operation must give; prints the differences
"""
import math
import os
import random
import sys
from collections import Counter, defaultdict

M = 2 ** 64


def gen(d):
    rnd = random.Random(1313)
    a = [f"k{rnd.randrange(200)}\t{rnd.randrange(-1000, 1001)}" for _ in range(3000)]
    words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "", "two words", "ünï"]
    b = [f"k{rnd.randrange(100, 300)}\t{rnd.choice(words)}" for _ in range(500)]
    b += rnd.sample(a, 40) + a[:3]  # lines in both files (subtract, intersection)
    rnd.shuffle(b)
    with open(os.path.join(d, "a.tsv"), "w") as f:
        f.write("\n".join(a) + "\n")
    with open(os.path.join(d, "b.tsv"), "w") as f:
        f.write("\n".join(b) + "\n")
    os.makedirs(os.path.join(d, "docs"))
    for i in range(6):
        lines = [" ".join(rnd.choice(words) for _ in range(rnd.randrange(1, 8)))
                 for _ in range(rnd.randrange(0, 400) if i else 0)]
        with open(os.path.join(d, "docs", f"doc{i}.txt"), "w") as f:
            f.write("".join(l + "\n" for l in lines))


def read_lines(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape").split("\n")[:-1]


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % M
    return z ^ (z >> 31)


class Draws:
    """cspark's per-partition sample draws (exec/part_iter.c): splitmix64 from seed and index."""

    def __init__(self, seed, partition):
        self.state = mix64(seed) ^ mix64((partition + 0x632BE59BD9B4E019) % M)

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) % M
        return (mix64(self.state) >> 11) * 2.0 ** -53

    def poisson(self, lam):
        limit, p, k = math.exp(-lam), 1.0, -1
        while True:
            k += 1
            p *= self.next()
            if not p > limit:
                return k


def range_partitions(n, parts):
    return [list(range(n * p // parts, n * (p + 1) // parts)) for p in range(parts)]


def bkey(s):
    return s.encode("utf-8", "surrogateescape")


def reference(d):
    a_lines = read_lines(os.path.join(d, "a.tsv"))
    b_lines = read_lines(os.path.join(d, "b.tsv"))
    a = [(l.split("\t")[0], int(l.split("\t")[1])) for l in a_lines]
    b = [(l.split("\t", 1)[0], l.split("\t", 1)[1]) for l in b_lines]
    ref = {}  # op -> (lines, ordered?)
    ref["map_values"] = ([f"{k}\t{2 * v}" for k, v in a], False)
    ref["flat_map_values"] = ([f"{k}\t{v}" for k, v in a for _ in range(v % 3)], False)
    ref["keys"] = ([f"{k}\t" for k, _ in a], False)
    ref["values"] = ([f"{w}\t" for _, w in b], False)
    ref["key_by"] = ([f"{-v}\t{k}\t{v}" for k, v in a], False)
    ref["sort_by"] = ([f"{k}\t{v}" for k, v in a], False)  # order checked apart
    srt = sorted(a, key=lambda kv: (bkey(kv[0]), kv[1]))
    ref["top"] = ([f"{k}\t{v}" for k, v in srt[::-1][:7]], True)
    ref["take_ordered"] = ([f"{k}\t{v}" for k, v in srt[:7]], True)
    ref["top_all"] = ([f"{k}\t{v}" for k, v in srt[::-1]], True)
    ref["first"] = ([a_lines[0] + "\t"], True)
    ck = Counter(k for k, _ in a)
    ref["count_by_key"] = ([f"{k}\t{ck[k]}" for k in sorted(ck, key=bkey)], True)
    cb = Counter(k for k, _ in b)
    ref["count_by_value"] = ([f"{k}\t{cb[k]}" for k in sorted(cb, key=bkey)], True)
    last = {}
    for k, w in b:
        last[k] = w
    ref["collect_as_map"] = ([f"{k}\t{last[k]}" for k in sorted(last, key=bkey)], True)
    ref["find"] = ([f"{len(bkey(last['k1'])) if 'k1' in last else -1} 0"], True)
    sums, cnts = defaultdict(int), Counter()
    for k, v in a:
        sums[k] += v
        cnts[k] += 1
    ref["fold_by_key"] = ([f"{k}\t{sums[k]}" for k in sums], False)
    ref["combine_by_key"] = ([f"{k}\t{sums[k]}\t{cnts[k]}" for k in sums], False)
    lists = defaultdict(list)
    for k, w in b:
        lists[k].append(w)
    ref["collect_list"] = ([norm_list(f"{k}\t{len(ws)}\t" + "\t".join(ws)) for k, ws in lists.items()], False)
    amap = defaultdict(list)
    for k, v in a:
        amap[k].append(v)
    bkeys = set(k for k, _ in b)
    roj = [f"{k}\t{v}\t{w}" for k, w in b for v in amap.get(k, [])] + \
          [f"{k}\tNONE\t{w}" for k, w in b if k not in amap]
    ref["right_outer_join"] = (roj, False)
    ref["full_outer_join"] = (roj + [f"{k}\t{v}\tNONE" for k, v in a if k not in bkeys], False)
    ref["subtract_by_key"] = ([f"{k}\t{v}" for k, v in a if k not in bkeys], False)
    bset, aset = set(b_lines), set(a_lines)
    ref["subtract"] = ([l + "\t" for l in a_lines if l not in bset], False)
    ref["intersection"] = ([l + "\t" for l in aset & bset], False)
    parts = range_partitions(20000, 4)
    sample, repl = [], []
    for p, xs in enumerate(parts):
        d1, d2 = Draws(42, p), Draws(7, p)
        for x in xs:
            if d1.next() < 0.3:
                sample.append(x)
            repl += [x] * d2.poisson(0.5)
    ref["sample"] = ([f"{x}\t" for x in sample], True)
    ref["sample_repl"] = ([f"{x}\t" for x in repl], True)
    bounds = [0.0, 1.0 / 6]
    bounds.append(bounds[1] + 2.0 / 6)
    bounds.append(1.0)
    splits = [[], [], []]
    for p, xs in enumerate(parts):
        dr = Draws(9, p)
        for x in xs:
            u = dr.next()
            for i in range(3):
                if bounds[i] <= u < bounds[i + 1]:
                    splits[i].append(x)
    for i in range(3):
        ref[f"split{i}"] = ([f"{x}\t" for x in splits[i]], True)
    ref["zip_with_index"] = ([f"{i}\t{l}\t" for i, l in enumerate(a_lines)], True)
    ref["partition_counts"] = ([f"{p}\t{len(xs)}" for p, xs in enumerate(parts)], False)
    docs = os.path.join(d, "docs")
    wt, ifn = [], []
    for name in sorted(os.listdir(docs)):
        with open(os.path.join(docs, name), "rb") as f:
            data = f.read()
        first = data.split(b"\n")[0].decode("utf-8", "surrogateescape")
        nl = data.count(b"\n")
        wt.append(f"{name}\t{len(data)}\t{nl}\t{first}")
        if nl:
            ifn.append(f"{name}\t{nl}")
    ref["whole_text_files"] = (wt, False)
    ref["partition_by"] = ([f"{int(k[1:]) % 3}\t{k}" for k, _ in a], False)
    xs, ys = [f"x{i}" for i in range(1, 6)], ["y1", "y2", "y3", ""]
    ref["cartesian"] = (["partitions 6"] + sorted(f"{x}\tv\t{y}\t" for x in xs for y in ys), True)
    ref["tree_aggregate"] = ([f"{d} {sum(range(100000))}" for d in (1, 2, 3)], True)
    ref["checkpoint"] = ([f"{k}\t{sums[k]}" for k in sums], False)
    ref["checkpoint_count"] = ([f"{len(sums)}"], True)
    ref["input_file_name"] = (ifn, True)
    return ref


def norm_list(line):
    f = line.split("\t")
    return "\t".join(f[:2] + sorted(f[2:]))


def check(d, out):
    bad = 0
    for op, (want, ordered) in reference(d).items():
        path = os.path.join(out, op + ".txt")
        if not os.path.exists(path):
            print(f"{op}: no output")
            bad += 1
            continue
        got = read_lines(path)
        if op == "cartesian":
            got = got[:1] + sorted(got[1:])
        if op == "collect_list":
            got = [norm_list(l) for l in got]
        if op == "sort_by":
            vals = [int(l.split("\t")[1]) for l in got]
            if vals != sorted(vals, reverse=True):
                print("sort_by: values not in descending order")
                bad += 1
        g, w = (got, want) if ordered else (sorted(got), sorted(want))
        if g != w:
            bad += 1
            print(f"{op}: {len(got)} lines, want {len(want)}")
            for i, (x, y) in enumerate(zip(g, w)):
                if x != y:
                    print(f"  first difference at {i}: got {x!r} want {y!r}")
                    break
    if bad == 0:
        print(f"all {len(reference(d))} operations agree with the reference")
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(1 if check(sys.argv[2], sys.argv[3]) else 0)
