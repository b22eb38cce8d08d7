#!/usr/bin/env python3
"""same_ranks.py — checks that two PageRank outputs hold the same pages with the same ranks.

usage: same_ranks.py DIR_A DIR_B   (each: part-* files of "page<TAB>rank" lines)

Ranks are printed "%.6f" by both sides but summed in different orders (and Java rounds the
decimal half-up where C rounds the binary value), so they may differ in the last digit: equal
means the same set of pages and every rank within 2e-6 + 1e-9 * rank. Prints one line; exit 1 if
they differ.
"""
import glob
import os
import sys


def ranks(d):
    out = {}
    for p in sorted(glob.glob(os.path.join(d, "part-*"))):
        with open(p, encoding="utf-8") as f:
            for line in f:
                page, _, r = line.rstrip("\n").rpartition("\t")
                if page in out:
                    raise SystemExit(f"same_ranks: page {page!r} twice in {d}")
                out[page] = float(r)
    return out


def main():
    if len(sys.argv) != 3:
        print("usage: same_ranks.py DIR_A DIR_B", file=sys.stderr)
        return 2
    a, b = ranks(sys.argv[1]), ranks(sys.argv[2])
    if a.keys() != b.keys():
        only_a, only_b = len(a.keys() - b.keys()), len(b.keys() - a.keys())
        print(f"same_ranks: pages differ ({only_a} only in A, {only_b} only in B)")
        return 1
    worst = max((abs(a[p] - b[p]), p) for p in a) if a else (0.0, "")
    bad = [p for p in a if abs(a[p] - b[p]) > 2e-6 + 1e-9 * abs(a[p])]
    if bad:
        print(f"same_ranks: {len(bad)} of {len(a)} ranks differ, e.g. {bad[0]}: {a[bad[0]]} vs {b[bad[0]]}")
        return 1
    print(f"same_ranks: {len(a)} pages, largest difference {worst[0]:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
