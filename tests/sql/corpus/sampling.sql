-- TABLESAMPLE and its REPEATABLE seed (Spark's Sample: a BernoulliCellSampler per partition, an
-- XORShiftRandom seeded with seed + the partition index, one draw per row): the same rows as
-- Spark for a seed over the same partitions. local[2].
CREATE OR REPLACE TEMPORARY VIEW r AS SELECT * FROM range(0, 1000, 1, 2);
SELECT count(*), sum(id) FROM r TABLESAMPLE (30 PERCENT) REPEATABLE (42);
--@ordered
SELECT id FROM r TABLESAMPLE (1 PERCENT) REPEATABLE (7) ORDER BY id;
SELECT count(*) FROM r TABLESAMPLE (BUCKET 1 OUT OF 4) REPEATABLE (3);
SELECT count(*), min(id), max(id) FROM (SELECT * FROM r WHERE id % 2 = 0) TABLESAMPLE (50 PERCENT) REPEATABLE (11);
SELECT count(*) FROM r TABLESAMPLE (0 PERCENT) REPEATABLE (1);
SELECT count(*) FROM r TABLESAMPLE (100 PERCENT) REPEATABLE (1);
SELECT count(*) FROM r TABLESAMPLE (5 ROWS);
--@ordered
SELECT spark_partition_id() p, id FROM (SELECT * FROM range(0, 40, 1, 4)) TABLESAMPLE (25 PERCENT) REPEATABLE (2024) ORDER BY id;
SELECT count(*) FROM (SELECT id, id * 2 AS d FROM r) s TABLESAMPLE (10 PERCENT) REPEATABLE (-5) WHERE d > 100;
