#!/usr/bin/env python3
"""kmeans_ref.py — the reference for examples/kmeans.c, written independently of cspark: Lloyd's
k-means from the first K points, coordinates as exact integers of millionths, squared distances
in doubles summed in coordinate order, ties to the lower index, an empty cluster keeps its
centroid. A line is blank or a comment (skipped), a point, or malformed (skipped and counted):
fields are separated by spaces, tabs, commas or CRs, each a decimal number of at most 12 digits
before the point and 6 after it (at least one digit in all, optional sign), at most 64 fields;
D is the dimension of the first point, and a point of another dimension is malformed too.
Prints what kmeans.so prints: "points N", "malformed M", then "centroid i: x y ..." ("%.6f").

Usage: kmeans_ref.py POINTS K ITERATIONS
"""
import re
import sys

SEP = re.compile(rb"[ \t,\r]+")
NUMBER = re.compile(rb"([+-]?)([0-9]{0,12})(?:\.([0-9]{0,6}))?")


def parse_line(line):
    """The coordinates in millionths; [] for a blank or comment line; None when malformed."""
    fields = [f for f in SEP.split(line) if f]
    if not fields or fields[0].startswith(b"#"):
        return []
    if len(fields) > 64:
        return None
    coords = []
    for f in fields:
        m = NUMBER.fullmatch(f)
        if not m or (not m.group(2) and not m.group(3)):
            return None
        whole = int(m.group(2) or b"0")
        frac = int((m.group(3) or b"").ljust(6, b"0"))
        coords.append((-1 if m.group(1) == b"-" else 1) * (whole * 1000000 + frac))
    return coords


def main():
    path, k, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    parsed = []
    with open(path, "rb") as f:
        for line in f:
            c = parse_line(line.rstrip(b"\n"))
            if c != []:
                parsed.append(c)
    head = [c for c in parsed if c is not None][:k]
    if len(head) < k:
        sys.exit(f"kmeans_ref: fewer than K={k} points")
    d = len(head[0])
    if any(len(c) != d for c in head):
        sys.exit("kmeans_ref: the first K points have different dimensions")
    pts = [c for c in parsed if c is not None and len(c) == d]
    malformed = len(parsed) - len(pts)
    cents = [[float(x) for x in p] for p in head]
    for _ in range(iters):
        sums = [[0] * d for _ in range(k)]
        counts = [0] * k
        for p in pts:
            best, best_dist = 0, 0.0
            for c in range(k):
                cen = cents[c]
                dist = 0.0
                for j in range(d):
                    diff = float(p[j]) - cen[j]
                    dist += diff * diff
                if c == 0 or dist < best_dist:
                    best, best_dist = c, dist
            s = sums[best]
            for j in range(d):
                s[j] += p[j]
            counts[best] += 1
        for c in range(k):
            if counts[c]:
                cents[c] = [sums[c][j] / counts[c] for j in range(d)]
    print(f"points {len(pts)}")
    print(f"malformed {malformed}")
    for c in range(k):
        print("centroid %d:%s" % (c, "".join(" %.6f" % (x / 1e6) for x in cents[c])))


if __name__ == "__main__":
    main()
