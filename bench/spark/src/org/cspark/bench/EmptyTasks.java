/*
 * EmptyTasks.java — examples/emptytasks.c: one job of N tasks that do nothing (range(0, N) in N
 * partitions, count()), timed around the action; prints as emptytasks.so does:
 *   emptytasks: N tasks in S s, R tasks/s
 *
 * usage: EmptyTasks [N]   (default 100000)
 */
package org.cspark.bench;

import java.util.Locale;

import org.apache.spark.api.java.JavaSparkContext;

public final class EmptyTasks {
    public static void main(String[] args) {
        if (args.length > 1) Bench.usage("EmptyTasks [N]");
        long n = args.length == 1 ? Bench.parseCount(args[0], 1, 10000000, "EmptyTasks [N]") : 100000;
        try (JavaSparkContext sc = Bench.context("emptytasks")) {
            long t0 = System.nanoTime();
            long count = sc.sc().range(0, n, 1, (int) n).count();
            double dt = (System.nanoTime() - t0) / 1e9;
            if (count != n) {
                System.err.println("emptytasks: counted " + count + " records, expected " + n);
                System.exit(1);
            }
            System.out.printf(Locale.ROOT, "emptytasks: %d tasks in %.3f s, %.0f tasks/s%n", n, dt, n / dt);
        }
    }
}
