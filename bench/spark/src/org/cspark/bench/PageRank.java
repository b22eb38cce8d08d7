/*
 * PageRank.java — examples/pagerank.c, i.e. Spark's own SparkPageRank example, in Java.
 *
 *   links = lines.map(s => (src, dst)).distinct().groupByKey().cache()
 *   ranks = links.mapValues(1.0)
 *   ITERATIONS times: ranks = links.join(ranks).values
 *                                  .flatMap((urls, rank) => urls.map(url => (url, rank / size)))
 *                                  .reduceByKey(+).mapValues(0.15 + 0.85 * _)
 *   ranks.map(p + "\t" + "%.6f".format(r)).saveAsTextFile(OUTDIR)
 *
 * Input lines "src dst"; blank lines, one-field lines and '#' lines are skipped, as cspark does.
 * usage: PageRank EDGES ITERATIONS OUTDIR
 */
package org.cspark.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;

import scala.Tuple2;

public final class PageRank {
    static boolean space(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\u000B' || c == '\f';
    }

    static Iterator<Tuple2<String, String>> parse(String l) {
        int n = l.length(), i = 0;
        while (i < n && space(l.charAt(i))) i++;
        if (i == n || l.charAt(i) == '#') return Collections.emptyIterator();
        int s = i;
        while (i < n && !space(l.charAt(i))) i++;
        int se = i;
        while (i < n && space(l.charAt(i))) i++;
        int d = i;
        while (i < n && !space(l.charAt(i))) i++;
        if (i == d) return Collections.emptyIterator();
        return Collections.singletonList(new Tuple2<>(l.substring(s, se), l.substring(d, i))).iterator();
    }

    public static void main(String[] args) {
        if (args.length != 3) Bench.usage("PageRank EDGES ITERATIONS OUTDIR");
        long iters = Bench.parseCount(args[1], 0, 100000, "PageRank EDGES ITERATIONS OUTDIR");
        try (JavaSparkContext sc = Bench.context("pagerank")) {
            JavaPairRDD<String, Iterable<String>> links =
                    sc.textFile(args[0]).flatMapToPair(PageRank::parse).distinct().groupByKey().cache();
            JavaPairRDD<String, Double> ranks = links.mapValues(v -> 1.0);
            for (long i = 0; i < iters; i++) {
                ranks = links.join(ranks).values().flatMapToPair(t -> {
                    List<String> urls = new ArrayList<>();
                    for (String u : t._1) urls.add(u);
                    List<Tuple2<String, Double>> out = new ArrayList<>(urls.size());
                    for (String u : urls) out.add(new Tuple2<>(u, t._2 / urls.size()));
                    return out.iterator();
                }).reduceByKey(Double::sum).mapValues(r -> 0.15 + 0.85 * r);
            }
            ranks.map(t -> t._1 + "\t" + String.format(Locale.ROOT, "%.6f", t._2)).saveAsTextFile(args[2]);
        }
    }
}
