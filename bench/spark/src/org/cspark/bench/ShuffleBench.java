/*
 * ShuffleBench.java — examples/shufflebench.c: an all-to-all shuffle of MB megabytes of 100-byte
 * records (8-byte key, 92-byte value, generated in the map tasks from the same hash as cspark),
 * repartition(PARTITIONS).count(), timed around the action. Prints as shufflebench.so:
 *   shufflebench: N records, M MB shuffled in S s, R MB/s
 *
 * usage: ShuffleBench [MB] [PARTITIONS]   (defaults 1024 and 2 x default parallelism)
 */
package org.cspark.bench;

import java.util.Iterator;
import java.util.Locale;
import java.util.NoSuchElementException;

import org.apache.spark.api.java.JavaSparkContext;

import scala.Tuple2;

public final class ShuffleBench {
    static final int RECORD_BYTES = 100, RECORDS_PER_INPUT = 1000;

    static void put64(byte[] b, int off, long x, int n) {
        for (int i = 0; i < n; i++) b[off + i] = (byte) (x >>> (8 * i));
    }

    /* The RECORDS_PER_INPUT records of one input number, as sb_expand makes them. */
    static Iterator<Tuple2<byte[], byte[]>> expand(long input) {
        long base = input * RECORDS_PER_INPUT;
        return new Iterator<Tuple2<byte[], byte[]>>() {
            int i = 0;

            public boolean hasNext() {
                return i < RECORDS_PER_INPUT;
            }

            public Tuple2<byte[], byte[]> next() {
                if (i >= RECORDS_PER_INPUT) throw new NoSuchElementException();
                long x = (base + i++) * 0x9E3779B97F4A7C15L;
                byte[] k = new byte[8], v = new byte[RECORD_BYTES - 8];
                put64(k, 0, x, 8);
                for (int j = 0; j < RECORD_BYTES - 8; j += 8) {
                    x ^= x >>> 29;
                    x *= 0xBF58476D1CE4E5B9L;
                    put64(v, j, x, Math.min(8, RECORD_BYTES - 8 - j));
                }
                return new Tuple2<>(k, v);
            }
        };
    }

    public static void main(String[] args) {
        if (args.length > 2) Bench.usage("ShuffleBench [MB] [PARTITIONS]");
        long mb = args.length > 0 ? Bench.parseCount(args[0], 1, 1 << 30, "ShuffleBench [MB] [PARTITIONS]") : 1024;
        try (JavaSparkContext sc = Bench.context("shufflebench")) {
            int parts = args.length > 1 ? (int) Bench.parseCount(args[1], 1, 1 << 20, "ShuffleBench [MB] [PARTITIONS]")
                                        : 2 * sc.defaultParallelism();
            long inputs = mb * 1000000 / (RECORD_BYTES * RECORDS_PER_INPUT);
            long t0 = System.nanoTime();
            long n = sc.sc().range(0, inputs, 1, parts).toJavaRDD()
                    .flatMap(i -> expand((Long) i)).repartition(parts).count();
            double s = (System.nanoTime() - t0) / 1e9;
            double bytes = (double) n * RECORD_BYTES;
            System.out.printf(Locale.ROOT, "shufflebench: %d records, %.0f MB shuffled in %.3f s, %.0f MB/s%n", n,
                    bytes / 1e6, s, bytes / 1e6 / s);
        }
    }
}
