#!/usr/bin/env python3
"""gen_points.py — points for examples/kmeans.c: N points in D dimensions around K random centres
(normal spread), one per line, coordinates with 6 digits after the point, deterministic per seed.
With MALFORMED > 0, that many malformed lines (kmeans.c skips and counts them: words, too many
digits, another dimension, ...) are spread among the points, with as many blank and comment lines
and points written in other accepted forms (commas, tabs, signs, no fraction); the first K lines
stay well-formed points, the initial centroids.

Usage: gen_points.py N K D SEED [MALFORMED] > points.txt
"""
import random
import sys


def odd_lines(d, rnd):
    """(malformed, accepted) line generators for dimension d."""
    num = lambda: "%.6f" % rnd.uniform(-50.0, 50.0)
    pt = lambda sep: sep.join(num() for _ in range(d))
    malformed = [
        lambda: pt(" ") + " x",
        lambda: " ".join(num() for _ in range(d + 1)),
        lambda: " ".join(num() for _ in range(max(d - 1, 1))) if d > 1 else "1 2",
        lambda: "1.1234567" + " 0" * (d - 1),
        lambda: "1234567890123" + " 0" * (d - 1),
        lambda: "--1" + " 0" * (d - 1),
        lambda: "1e5" + " 0" * (d - 1),
        lambda: "." + " 0" * (d - 1),
        lambda: " ".join(["1"] * 65),
        lambda: pt(" ") + " #tail",
    ]
    accepted = [
        lambda: "",
        lambda: "# " + pt(" "),
        lambda: " \t ",
        lambda: pt(","),
        lambda: pt("\t") + "\r",
        lambda: "  " + " ".join(rnd.choice(["+", "-", ""]) + str(rnd.randrange(50)) for _ in range(d)),
        lambda: ", ".join(("%.3f" % rnd.uniform(-50, 50)).replace("0.", ".") for _ in range(d)),
    ]
    return malformed, accepted


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit("usage: gen_points.py N K D SEED [MALFORMED]")
    n, k, d, seed = (int(a) for a in sys.argv[1:5])
    bad = int(sys.argv[5]) if len(sys.argv) == 6 else 0
    rnd = random.Random(seed)
    centres = [[rnd.uniform(-100.0, 100.0) for _ in range(d)] for _ in range(k)]
    odd = random.Random(seed + 1)
    malformed, accepted = odd_lines(d, odd)
    # after which point each odd line goes (never among the first K)
    slots = sorted(odd.randrange(min(k, n), n + 1) for _ in range(2 * bad))
    out = sys.stdout
    lines = []
    s = 0
    for i in range(n + 1):
        while s < len(slots) and slots[s] == i:
            lines.append(odd.choice(malformed)() if s % 2 == 0 else odd.choice(accepted)())
            s += 1
        if i == n:
            break
        c = centres[rnd.randrange(k)]
        lines.append(" ".join("%.6f" % (x + rnd.gauss(0.0, 8.0)) for x in c))
        if len(lines) >= 10000:
            out.write("\n".join(lines) + "\n")
            lines = []
    if lines:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
