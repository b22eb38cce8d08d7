-- tables.sql — the bucketed tables tests/spark/bucketed_write.sh has Spark 4 and cspark write:
-- the same rows (deterministic expressions over range) bucketed by columns of each type Spark
-- hashes differently (int, bigint, string, double, decimal, date, timestamp, boolean, nulls,
-- several columns), with and without SORTED BY and PARTITIONED BY, written by CREATE TABLE AS
-- and by INSERT into a declared bucketed table. ${OUT} is the engine's output folder.
CREATE TABLE b_int USING parquet CLUSTERED BY (i) INTO 8 BUCKETS LOCATION '${OUT}/b_int' AS SELECT CAST(id AS INT) i, CAST(id * 7 AS STRING) s FROM range(0, 300, 1, 3);
CREATE TABLE b_long USING parquet CLUSTERED BY (l) SORTED BY (v) INTO 5 BUCKETS LOCATION '${OUT}/b_long' AS SELECT id * 1000003 l, (id * 37) % 101 v FROM range(0, 250, 1, 2);
CREATE TABLE b_str USING parquet CLUSTERED BY (s) SORTED BY (n) INTO 7 BUCKETS LOCATION '${OUT}/b_str' AS SELECT IF(id % 17 = 0, NULL, concat('k', CAST(id % 40 AS STRING), repeat('x', CAST(id % 5 AS INT)))) s, id n FROM range(0, 200, 1, 4);
CREATE TABLE b_num USING parquet CLUSTERED BY (d, m) INTO 6 BUCKETS LOCATION '${OUT}/b_num' AS SELECT CAST(id AS DOUBLE) / 4 - 10 d, CAST(id * 3 AS DECIMAL(12, 2)) / 7 m, id k FROM range(0, 150, 1, 2);
CREATE TABLE b_time USING parquet CLUSTERED BY (dt, ts, b) INTO 4 BUCKETS LOCATION '${OUT}/b_time' AS SELECT date_add(DATE'2020-01-01', CAST(id AS INT)) dt, timestamp_seconds(id * 3600 + 1600000000) ts, id % 3 = 0 b, id k FROM range(0, 120);
CREATE TABLE b_part USING parquet PARTITIONED BY (p) CLUSTERED BY (i) SORTED BY (s) INTO 3 BUCKETS LOCATION '${OUT}/b_part' AS SELECT CAST(id AS INT) i, CAST(id % 11 AS STRING) s, CAST(id % 2 AS INT) p FROM range(0, 100, 1, 2);
CREATE TABLE b_ins (a INT, b STRING, c BIGINT) USING parquet CLUSTERED BY (b) SORTED BY (c) INTO 4 BUCKETS LOCATION '${OUT}/b_ins';
INSERT INTO b_ins SELECT CAST(id AS INT), CAST(id % 13 AS STRING), 1000 - id FROM range(0, 90, 1, 3);
