-- check: ordered
-- Word count (bench/spark_vs_cspark.sh's wordcount.so: sc.textFile(text).flatMap(_.split("\\s+"))
-- .map((_, 1)).reduceByKey(_ + _)): every word and its count, split on runs of whitespace (Java's
-- \s: space, \t, \n, \x0B, \f, \r) with empty words dropped; all of them, ordered by count
-- descending, then word, so the rows compare exactly and in order.
SELECT word, count(*) AS n
FROM (SELECT explode(split(value, '\\s+')) AS word FROM lines) w
WHERE word <> ''
GROUP BY word
ORDER BY n DESC, word;
