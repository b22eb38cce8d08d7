/*
 * WordCount.java — examples/wordcount.c against Spark's Java RDD API.
 *
 *   textFile.flatMap(words).mapToPair(w -> (w, 1)).reduceByKey(+)   (map-side combine)
 *   .map(w + "\t" + c).saveAsTextFile(OUTDIR)
 *   then, as cspark's example: OUTDIR/part-* read back, per-partition summary and top 10, merged
 *   in the driver, and printed exactly as wordcount.so prints them:
 *     N distinct words, M total
 *     word<TAB>count      (10 lines: count descending, then word bytes ascending)
 *
 * usage: WordCount INPUT OUTDIR
 */
package org.cspark.bench;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;

import scala.Tuple2;

public final class WordCount {
    /* The words of a line: maximal runs of characters that are not ASCII whitespace. */
    static Iterator<String> words(String line) {
        List<String> out = new ArrayList<>();
        int n = line.length(), i = 0;
        while (i < n) {
            while (i < n && Bench.isSpace(line.charAt(i))) i++;
            int start = i;
            while (i < n && !Bench.isSpace(line.charAt(i))) i++;
            if (i > start) out.add(line.substring(start, i));
        }
        return out.iterator();
    }

    /* One partition's summary: ("D", distinct words), ("N", total words) and its top 10 as
     * ("T" + word, count) entries. */
    static Iterator<Tuple2<String, Long>> top(Iterator<String> lines) {
        List<Tuple2<String, Long>> best = new ArrayList<>();
        long distinct = 0, total = 0;
        while (lines.hasNext()) {
            String l = lines.next();
            int tab = l.lastIndexOf('\t');
            if (tab < 0) continue;
            String w = l.substring(0, tab);
            long c = Long.parseLong(l.substring(tab + 1));
            distinct++;
            total += c;
            insert(best, w, c);
        }
        List<Tuple2<String, Long>> out = new ArrayList<>();
        out.add(new Tuple2<>("D", distinct));
        out.add(new Tuple2<>("N", total));
        for (Tuple2<String, Long> t : best) out.add(new Tuple2<>("T" + t._1, t._2));
        return out.iterator();
    }

    static void insert(List<Tuple2<String, Long>> best, String w, long c) {
        if (best.size() == 10 && Bench.reportOrder(c, w, best.get(9)._2, best.get(9)._1) >= 0) return;
        int pos = best.size();
        while (pos > 0 && Bench.reportOrder(c, w, best.get(pos - 1)._2, best.get(pos - 1)._1) < 0) pos--;
        best.add(pos, new Tuple2<>(w, c));
        if (best.size() > 10) best.remove(10);
    }

    /* Merges the partitions' summaries and prints the report. */
    static void report(List<Tuple2<String, Long>> parts) {
        long distinct = 0, total = 0;
        List<Tuple2<String, Long>> best = new ArrayList<>();
        for (Tuple2<String, Long> t : parts) {
            if (t._1.equals("D")) {
                distinct += t._2;
            } else if (t._1.equals("N")) {
                total += t._2;
            } else {
                insert(best, t._1.substring(1), t._2);
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append(distinct).append(" distinct words, ").append(total).append(" total\n");
        for (Tuple2<String, Long> t : best) sb.append(t._1).append('\t').append(t._2).append('\n');
        System.out.print(sb);
        System.out.flush();
    }

    public static void main(String[] args) {
        if (args.length != 2) Bench.usage("WordCount INPUT OUTDIR");
        try (JavaSparkContext sc = Bench.context("wordcount")) {
            JavaPairRDD<String, Long> counts = sc.textFile(args[0]).flatMap(WordCount::words)
                    .mapToPair(w -> new Tuple2<>(w, 1L)).reduceByKey(Long::sum);
            counts.map(t -> t._1 + "\t" + t._2).saveAsTextFile(args[1]);
            report(sc.textFile(args[1] + "/part-*").mapPartitions(WordCount::top).collect());
        }
    }
}
