#!/usr/bin/env python3
"""kmeans_ref.py — the reference for examples/kmeans.c, written independently of cspark: Lloyd's
k-means from the first K points, coordinates as exact integers of millionths, squared distances
in doubles summed in coordinate order, ties to the lower index, an empty cluster keeps its
centroid. Prints the centroids as kmeans.so does ("centroid i: x y ..." with "%.6f").

Usage: kmeans_ref.py POINTS K ITERATIONS
"""
import sys
from decimal import Decimal


def parse(path):
    pts = []
    for line in open(path, encoding="utf-8"):
        fields = line.replace(",", " ").split()
        if not fields or fields[0].startswith("#"):
            continue
        pts.append([int(Decimal(f).scaleb(6)) for f in fields])
    return pts


def main():
    path, k, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    pts = parse(path)
    d = len(pts[0])
    cents = [[float(x) for x in p] for p in pts[:k]]
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
    for c in range(k):
        print("centroid %d:%s" % (c, "".join(" %.6f" % (x / 1e6) for x in cents[c])))


if __name__ == "__main__":
    main()
