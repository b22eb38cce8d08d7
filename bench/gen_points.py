#!/usr/bin/env python3
"""gen_points.py — points for examples/kmeans.c: N points in D dimensions around K random centres
(normal spread), one per line, coordinates with 6 digits after the point, deterministic per seed.

Usage: gen_points.py N K D SEED > points.txt
"""
import random
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: gen_points.py N K D SEED")
    n, k, d, seed = (int(a) for a in sys.argv[1:])
    rnd = random.Random(seed)
    centres = [[rnd.uniform(-100.0, 100.0) for _ in range(d)] for _ in range(k)]
    out = sys.stdout
    lines = []
    for i in range(n):
        c = centres[rnd.randrange(k)]
        lines.append(" ".join("%.6f" % (x + rnd.gauss(0.0, 8.0)) for x in c))
        if len(lines) == 10000:
            out.write("\n".join(lines) + "\n")
            lines = []
    if lines:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
