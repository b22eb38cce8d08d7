/*
 * Sort.java — examples/sort.c (TeraSort-style) against Spark's Java RDD API.
 *
 *   textFile.mapToPair(l -> (l.take(10), l.drop(10))).sortByKey()   (sampled range partitioning)
 *     .map(k + rest).saveAsTextFile(OUTDIR)
 *
 * Keys are gensort -a printable ASCII, so String order is byte order, as cspark sorts.
 * usage: Sort INPUT OUTDIR
 */
package org.cspark.bench;

import org.apache.spark.api.java.JavaSparkContext;

import scala.Tuple2;

public final class Sort {
    public static void main(String[] args) {
        if (args.length != 2) Bench.usage("Sort INPUT OUTDIR");
        try (JavaSparkContext sc = Bench.context("sort")) {
            sc.textFile(args[0])
                    .mapToPair(l -> l.length() < 10 ? new Tuple2<>(l, "")
                                                    : new Tuple2<>(l.substring(0, 10), l.substring(10)))
                    .sortByKey(true).map(t -> t._1 + t._2).saveAsTextFile(args[1]);
        }
    }
}
