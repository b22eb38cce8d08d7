-- Bucketed data source tables (Spark's BucketSpec): CREATE TABLE ... CLUSTERED BY (...) [SORTED BY
-- (...)] INTO n BUCKETS, with a declared schema and INSERT, and AS SELECT with PARTITIONED BY; how
-- DESCRIBE and SHOW CREATE TABLE show them; reading them back; the bucket spec's errors. Which
-- rows land in which bucket file is judged against Spark by tests/spark/bucketed_write.sh.
CREATE TABLE bkt_decl (a INT, b STRING, c BIGINT) USING parquet CLUSTERED BY (a, b) SORTED BY (c) INTO 4 BUCKETS;
INSERT INTO bkt_decl SELECT CAST(id AS INT), CAST(id % 3 AS STRING), 100 - id FROM range(0, 20, 1, 3);
INSERT INTO bkt_decl VALUES (NULL, NULL, NULL), (7, 'x', 1);
--@ordered
SELECT * FROM bkt_decl ORDER BY c NULLS FIRST, a;
SELECT b, count(*), sum(c) FROM bkt_decl GROUP BY b;
SELECT count(*) FROM bkt_decl WHERE a = 5;
DESCRIBE TABLE bkt_decl;
SHOW CREATE TABLE bkt_decl;
CREATE TABLE bkt_part USING parquet PARTITIONED BY (p) CLUSTERED BY (k) SORTED BY (v) INTO 3 BUCKETS COMMENT 'two parts' AS SELECT id k, CAST(id * 7 % 10 AS INT) v, CAST(id % 2 AS INT) p FROM range(0, 30, 1, 2);
--@ordered
SELECT p, k, v FROM bkt_part ORDER BY k;
SELECT p, count(*) FROM bkt_part GROUP BY p;
DESCRIBE TABLE bkt_part;
SHOW CREATE TABLE bkt_part;
CREATE TABLE bkt_case (A INT, bb DOUBLE) USING parquet CLUSTERED BY (a) SORTED BY (BB) INTO 2 BUCKETS;
SHOW CREATE TABLE bkt_case;
INSERT INTO bkt_case SELECT CAST(id AS INT), id / 4.0 FROM range(6);
--@ordered
SELECT * FROM bkt_case ORDER BY A;
CREATE TABLE bkt_e1 (a INT) USING parquet CLUSTERED BY (a) INTO 0 BUCKETS;
CREATE TABLE bkt_e2 (a INT) USING parquet CLUSTERED BY (a) INTO 100001 BUCKETS;
CREATE TABLE bkt_e3 (a INT) USING parquet CLUSTERED BY (x) INTO 2 BUCKETS;
CREATE TABLE bkt_e4 (a INT, p INT) USING parquet PARTITIONED BY (p) CLUSTERED BY (p) INTO 2 BUCKETS;
CREATE TABLE bkt_e5 (a INT, p INT) USING parquet PARTITIONED BY (p) CLUSTERED BY (a) SORTED BY (p) INTO 2 BUCKETS;
CREATE TABLE bkt_e6 (a INT) USING parquet CLUSTERED BY (a) SORTED BY (y) INTO 2 BUCKETS;
CREATE TABLE bkt_e7 USING parquet CLUSTERED BY (a) INTO 2 BUCKETS AS SELECT 1 b;
CREATE TABLE bkt_e8 (a INT) USING parquet CLUSTERED BY (a) SORTED BY (a DESC) INTO 2 BUCKETS;
CREATE TABLE bkt_e9 (a INT) USING parquet CLUSTERED BY (a) INTO BUCKETS;
SHOW TABLES LIKE 'bkt*';
DROP TABLE bkt_decl;
DROP TABLE bkt_part;
DROP TABLE bkt_case;
