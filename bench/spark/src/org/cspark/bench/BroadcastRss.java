/*
 * BroadcastRss.java — tests/jobs/sharedvars.c's bcast_rss on Spark (bench/broadcast.sh): each
 * executor's resident memory before a broadcast of MB MiB, then after ROUNDS jobs of PARTITIONS
 * tasks that each read the whole value (TorrentBroadcast) and hash it; the first round is timed
 * in the driver. Prints the same lines as bcast_rss:
 *   executor_pid=P rss_before_mb=B rss_after_mb=A delta_mb=D
 *   executors=E value_mb=MB rounds=R min_delta_mb=L max_delta_mb=H first_round_s=S
 *
 * usage: BroadcastRss [MB [PARTITIONS [ROUNDS]]]   (default 100 8 2)
 */
package org.cspark.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

public final class BroadcastRss {
    static long rssKb() {
        try {
            for (String l : Files.readAllLines(Paths.get("/proc/self/status")))
                if (l.startsWith("VmRSS:")) return Long.parseLong(l.replaceAll("[^0-9]", ""));
        } catch (IOException e) {
            // no /proc: reported as -1
        }
        return -1;
    }

    static Map<Long, Long> byPid(List<long[]> rows) {
        Map<Long, Long> m = new HashMap<>();
        for (long[] r : rows) m.merge(r[0], r[1], Math::max);
        return m;
    }

    public static void main(String[] args) {
        String use = "BroadcastRss [MB [PARTITIONS [ROUNDS]]]";
        int mb = args.length > 0 ? (int) Bench.parseCount(args[0], 1, 1024, use) : 100;
        int parts = args.length > 1 ? (int) Bench.parseCount(args[1], 1, 10000, use) : 8;
        int rounds = args.length > 2 ? (int) Bench.parseCount(args[2], 1, 100, use) : 2;
        try (JavaSparkContext sc = Bench.context("broadcastrss")) {
            List<Integer> idx = new ArrayList<>();
            for (int i = 0; i < parts; i++) idx.add(i);
            JavaRDD<Integer> src = sc.parallelize(idx, parts);
            Map<Long, Long> before = byPid(src.mapPartitions(it -> {
                while (it.hasNext()) it.next();
                return Collections.singletonList(new long[] {ProcessHandle.current().pid(), rssKb()}).iterator();
            }).collect());
            byte[] data = new byte[mb << 20];
            long x = 7;
            for (int i = 0; i < data.length; i++) {
                if ((i & 7) == 0) { x ^= x << 13; x ^= x >>> 7; x ^= x << 17; }
                data[i] = (byte) (x >>> ((i & 7) * 8));
            }
            Broadcast<byte[]> b = sc.broadcast(data);
            data = null;
            Map<Long, Long> after = null;
            double first = 0;
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                after = byPid(src.mapPartitions(it -> {
                    while (it.hasNext()) it.next();
                    byte[] v = b.value();
                    long h = 0xcbf29ce484222325L;
                    for (byte y : v) h = (h ^ (y & 0xff)) * 0x100000001b3L;
                    if (h == 42) throw new IllegalStateException("unlikely hash");
                    return Collections.singletonList(new long[] {ProcessHandle.current().pid(), rssKb()}).iterator();
                }).collect());
                if (r == 0) first = (System.nanoTime() - t0) / 1e9;
            }
            double lo = Double.MAX_VALUE, hi = 0;
            for (Map.Entry<Long, Long> e : after.entrySet()) {
                long b0 = before.getOrDefault(e.getKey(), 0L);
                double d = (e.getValue() - b0) / 1024.0;
                System.out.printf(Locale.ROOT, "executor_pid=%d rss_before_mb=%.1f rss_after_mb=%.1f delta_mb=%.1f%n",
                                  e.getKey(), b0 / 1024.0, e.getValue() / 1024.0, d);
                lo = Math.min(lo, d);
                hi = Math.max(hi, d);
            }
            System.out.printf(Locale.ROOT,
                              "executors=%d value_mb=%d rounds=%d min_delta_mb=%.1f max_delta_mb=%.1f first_round_s=%.3f%n",
                              after.size(), mb, rounds, lo, hi, first);
            b.destroy();
        }
    }
}
