-- Aggregate functions (sql-ref-functions-builtin.md, aggregate functions): count forms, sum,
-- avg, min, max, count(DISTINCT), sum(DISTINCT), collect_list/collect_set (sorted to be order
-- independent), first/last with ignoreNulls, stddev/variance, approx_count_distinct,
-- percentile_approx, percentile, median, bool_and/or, FILTER, empty inputs and all-NULL groups,
-- sum overflow under ANSI.
CREATE TEMPORARY VIEW agg AS SELECT * FROM VALUES
  ('x', 1, 2.0D), ('x', 2, NULL), ('x', 2, 4.0D), ('y', NULL, NULL), ('y', 5, 1.5D), ('z', 7, 7.0D), ('x', 3, 6.0D)
  AS agg(k, i, d);

SELECT count(*), count(i), count(d), count(1), count(NULL) FROM agg;
SELECT count(DISTINCT i), count(DISTINCT k, i), sum(DISTINCT i), avg(DISTINCT i) FROM agg;
SELECT k, sum(i), avg(i), min(i), max(i), sum(d), avg(d) FROM agg GROUP BY k;
SELECT k, count(*) FILTER (WHERE i > 1), sum(i) FILTER (WHERE d IS NOT NULL) FROM agg GROUP BY k;
SELECT k, sort_array(collect_list(i)), sort_array(collect_set(i)), array_sort(collect_list(d)) FROM agg GROUP BY k;
SELECT k, first(d, true), last(d, true) FROM agg WHERE k = 'z' GROUP BY k;
SELECT first(i) FROM (SELECT 9 AS i);
SELECT any_value(k) FROM agg WHERE k = 'y';
SELECT stddev(d), stddev_samp(d), stddev_pop(d), variance(d), var_samp(d), var_pop(d) FROM agg;
SELECT k, stddev(d), variance(d) FROM agg GROUP BY k;
SELECT corr(i, d), covar_pop(i, d), covar_samp(i, d), skewness(d), kurtosis(d) FROM agg;
SELECT approx_count_distinct(i), approx_count_distinct(k) FROM agg;
SELECT approx_count_distinct(id) FROM range(100000);
SELECT percentile_approx(i, 0.5), percentile_approx(i, array(0.25, 0.75)), percentile_approx(d, 0.5, 100) FROM agg;
SELECT percentile_approx(id, 0.9) FROM range(1, 1001);
SELECT percentile(i, 0.5), percentile(i, array(0.0, 1.0)), median(d) FROM agg;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY i), percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM agg;
SELECT bool_and(i > 0), bool_or(i > 6), every(d > 0), some(d > 6.5) FROM agg;
SELECT max_by(k, i), min_by(k, i), count_if(i > 2), mode(i) FROM agg;
SELECT bit_and(i), bit_or(i), bit_xor(i) FROM agg;
SELECT k, histogram_numeric(i, 2) IS NOT NULL FROM agg WHERE k = 'z' GROUP BY k;
SELECT count(*), sum(i), avg(i), min(i), max(i), collect_list(i), stddev(d), first(i) FROM agg WHERE false;
SELECT k, count(*) FROM agg WHERE false GROUP BY k;
SELECT sum(i), avg(d), max(d), count(i) FROM agg WHERE k = 'y' AND i IS NULL;
SELECT sum(x) FROM VALUES (9223372036854775807L), (1L) AS t(x);
SELECT try_sum(x) FROM VALUES (9223372036854775807L), (1L) AS t(x);
SELECT sum(x), typeof(sum(x)), avg(x), typeof(avg(x)) FROM VALUES (CAST(100 AS TINYINT)), (CAST(100 AS TINYINT)) AS t(x);
SELECT sum(x), avg(x) FROM VALUES (2147483647), (2147483647) AS t(x);
SELECT k, count(*) AS n FROM agg GROUP BY k HAVING n >= 2;
SELECT k, i, count(*) FROM agg GROUP BY k, i;
SELECT i % 2 AS parity, sum(d) FROM agg GROUP BY i % 2;
SELECT count(DISTINCT i) FILTER (WHERE k = 'x'), count(DISTINCT k) FROM agg;
SELECT regr_count(d, i), regr_slope(d, i), regr_intercept(d, i) FROM agg;
SELECT array_agg(i) IS NOT NULL, size(collect_list(i)) FROM agg;
SELECT grp, sum(v) FROM (SELECT id % 10 AS grp, id AS v FROM range(10000)) GROUP BY grp;
SELECT count(*), count(DISTINCT id % 97), sum(id % 7) FROM range(200000);
