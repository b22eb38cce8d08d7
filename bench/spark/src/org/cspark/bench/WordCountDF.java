/*
 * WordCountDF.java — the word count of WordCount.java as a DataFrame query (Spark SQL).
 *
 *   spark.read.text(INPUT)
 *     .select(explode(split(value, "[ \t\n\u000B\f\r]+")) as word).where(word != "")
 *     .groupBy(word).count()                      (partial aggregation before the exchange)
 *     .select(concat_ws("\t", word, count)).write.text(OUTDIR)
 *   then OUTDIR read back: count(), sum(count) and the top 10 (count desc, word asc; Spark SQL
 *   orders strings by their UTF-8 bytes, as cspark does), printed as wordcount.so prints them.
 *
 * usage: WordCountDF INPUT OUTDIR
 */
package org.cspark.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.split;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.substring_index;

import java.util.List;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

public final class WordCountDF {
    public static void main(String[] args) {
        if (args.length != 2) Bench.usage("WordCountDF INPUT OUTDIR");
        SparkSession spark = SparkSession.builder().appName("wordcount-dataframe").getOrCreate();
        try {
            Dataset<Row> words = spark.read().text(args[0])
                    .select(explode(split(col("value"), "[ \\t\\n\\u000B\\f\\r]+")).as("word"))
                    .where(col("word").notEqual(""));
            words.groupBy("word").count()
                    .select(concat_ws("\t", col("word"), col("count").cast("string")))
                    .write().text(args[1]);

            Dataset<Row> counts = spark.read().text(args[1]).select(
                    substring_index(col("value"), "\t", 1).as("word"),
                    substring_index(col("value"), "\t", -1).cast("long").as("n"));
            Row summary = counts.agg(count("*"), sum("n")).first();
            List<Row> top = counts.orderBy(col("n").desc(), col("word").asc()).limit(10).collectAsList();
            StringBuilder sb = new StringBuilder();
            sb.append(summary.getLong(0)).append(" distinct words, ")
                    .append(summary.isNullAt(1) ? 0 : summary.getLong(1)).append(" total\n");
            for (Row r : top) sb.append(r.getString(0)).append('\t').append(r.getLong(1)).append('\n');
            System.out.print(sb);
            System.out.flush();
        } finally {
            spark.stop();
        }
    }
}
