-- Partitioning hints and what they do to partitions (ResolveHints.ResolveCoalesceHints,
-- CoalesceExec, range / hash / round-robin exchanges, LocalTableScanExec's slices), seen through
-- spark_partition_id(); the hints' parameter errors. local[2]: 2 slices for local rows.
--@ordered
SELECT spark_partition_id() p, id FROM (SELECT /*+ COALESCE(2) */ * FROM range(0, 10, 1, 5)) ORDER BY id;
--@ordered
SELECT spark_partition_id() p, id FROM (SELECT /*+ COALESCE(9) */ * FROM range(0, 10, 1, 5)) ORDER BY id;
--@ordered
SELECT spark_partition_id() p, id FROM (SELECT /*+ COALESCE(1) */ * FROM range(0, 6, 1, 3)) ORDER BY id;
--@ordered
SELECT spark_partition_id() p, a FROM (SELECT /*+ COALESCE(3) */ * FROM VALUES (1), (2), (3), (4), (5) AS t(a)) ORDER BY a;
--@ordered
SELECT spark_partition_id() p, a FROM VALUES (1), (2), (3), (4), (5) AS t(a) ORDER BY a;
--@ordered
SELECT p, count(*) FROM (SELECT spark_partition_id() p FROM VALUES (1), (2), (3) AS t(a)) GROUP BY p ORDER BY p;
--@ordered
SELECT spark_partition_id() p, count(*) c FROM (SELECT /*+ COALESCE(2) */ * FROM range(0, 100, 1, 5)) GROUP BY p ORDER BY p;
--@ordered
SELECT p, min(id), max(id), count(*) FROM (SELECT spark_partition_id() p, id FROM (SELECT /*+ REPARTITION_BY_RANGE(4, id) */ * FROM range(0, 100, 1, 3))) GROUP BY p ORDER BY p;
--@ordered
SELECT p, min(id), max(id) FROM (SELECT spark_partition_id() p, id FROM (SELECT /*+ REPARTITION_BY_RANGE(3, 'id') */ * FROM range(0, 60, 1, 2))) GROUP BY p ORDER BY p;
--@ordered
SELECT p, sort_array(collect_list(id)) FROM (SELECT spark_partition_id() p, id FROM (SELECT /*+ REPARTITION(3, id) */ * FROM range(0, 12))) GROUP BY p ORDER BY p;
--@ordered
SELECT p, sort_array(collect_list(id)) FROM (SELECT spark_partition_id() p, id FROM (SELECT /*+ COALESCE(2), REPARTITION(5, id) */ * FROM range(0, 20))) GROUP BY p ORDER BY p;
SELECT /*+ REPARTITION(3) */ * FROM range(5);
SELECT /*+ REPARTITION */ * FROM range(5);
SELECT /*+ REPARTITION(id) */ * FROM range(5);
SELECT /*+ REBALANCE */ * FROM range(5);
SELECT /*+ REBALANCE(2, id) */ * FROM range(5);
SELECT /*+ REBALANCE(id) */ id * 2 FROM range(5);
SELECT /*+ REPARTITION_BY_RANGE(id) */ * FROM range(5);
SELECT /*+ UNKNOWN_HINT(3) */ * FROM range(3);
SELECT /*+ COALESCE('a') */ * FROM range(3);
SELECT /*+ COALESCE(2, id) */ * FROM range(3);
SELECT /*+ COALESCE */ * FROM range(3);
SELECT /*+ COALESCE(1.5) */ * FROM range(3);
SELECT /*+ REPARTITION(1, 2) */ * FROM range(3);
SELECT /*+ REPARTITION(id, 2) */ * FROM range(3);
SELECT /*+ REBALANCE(3, 4) */ * FROM range(3);
SELECT /*+ REPARTITION(nope) */ * FROM range(3);
SELECT /*+ REPARTITION_BY_RANGE(3, 'nope') */ * FROM range(3);
SELECT /*+ REPARTITION(3, id) */ * FROM range(3) DISTRIBUTE BY id;
