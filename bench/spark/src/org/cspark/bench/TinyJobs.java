/*
 * TinyJobs.java — examples/tinyjobs.c: N jobs one after another, each counting range(0, 100) in
 * 2 partitions; the latency of each job is measured around its action. Prints as tinyjobs.so:
 *   tinyjobs: N jobs, median M us, p90 P us, min A us, max B us
 * (median: lower middle; p90: nearest rank).
 *
 * usage: TinyJobs [N]   (default 1000)
 */
package org.cspark.bench;

import java.util.Arrays;

import org.apache.spark.api.java.JavaSparkContext;

public final class TinyJobs {
    public static void main(String[] args) {
        if (args.length > 1) Bench.usage("TinyJobs [N]");
        int n = (int) (args.length == 1 ? Bench.parseCount(args[0], 1, 10000000, "TinyJobs [N]") : 1000);
        long[] lat = new long[n];
        try (JavaSparkContext sc = Bench.context("tinyjobs")) {
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                long count = sc.sc().range(0, 100, 1, 2).count();
                lat[i] = (System.nanoTime() - t0) / 1000;
                if (count != 100) {
                    System.err.println("tinyjobs: job " + i + " counted " + count);
                    System.exit(1);
                }
            }
        }
        Arrays.sort(lat);
        System.out.printf("tinyjobs: %d jobs, median %d us, p90 %d us, min %d us, max %d us%n", n,
                lat[(n - 1) / 2], lat[(9 * n + 9) / 10 - 1], lat[0], lat[n - 1]);
    }
}
