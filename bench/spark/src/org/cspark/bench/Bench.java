/*
 * Bench.java — helpers shared by the Spark side of cspark's benchmarks (bench/spark_vs_cspark.sh).
 *
 * Each workload class mirrors one cspark example (examples/*.c) with the same algorithm and prints
 * the same result line(s) on stdout, so the benchmark script compares the two outputs directly.
 * Spark's own log goes to stderr. Timings printed by the classes measure the job(s) only, in the
 * driver (System.nanoTime around the actions), exactly where the cspark examples measure theirs.
 */
package org.cspark.bench;

import java.nio.charset.StandardCharsets;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

final class Bench {
    private Bench() {}

    /* A context whose application name is the workload's; master and everything else come from
     * spark-submit. */
    static JavaSparkContext context(String name) {
        return new JavaSparkContext(new SparkConf().setAppName(name));
    }

    static void usage(String text) {
        System.err.println("usage: " + text);
        System.exit(2);
    }

    static long parseCount(String s, long min, long max, String text) {
        try {
            long v = Long.parseLong(s);
            if (v >= min && v <= max) return v;
        } catch (NumberFormatException e) {
            // falls through to the usage message
        }
        usage(text);
        return -1;
    }

    /* The bytes cspark separates words on: ASCII space, \t, \n, \v, \f, \r. */
    static boolean isSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    /* Report order of word count's top 10: count descending, then UTF-8 bytes ascending (as
     * cspark compares words: unsigned bytes, a prefix first). */
    static int reportOrder(long countA, String wordA, long countB, String wordB) {
        if (countA != countB) return countA > countB ? -1 : 1;
        byte[] a = wordA.getBytes(StandardCharsets.UTF_8), b = wordB.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) {
            int c = (a[i] & 0xff) - (b[i] & 0xff);
            if (c != 0) return c;
        }
        return a.length - b.length;
    }
}
