-- sql_write.sh's statements, run by cspark-sql and by Apache Spark 4's spark-sql alike (@OUT@:
-- the run's output folder). Each writes a folder that both then read back.
CREATE TEMPORARY VIEW src AS SELECT * FROM VALUES
    (1, 'a', 2024, 1.5D, DATE'2024-01-02', 'x'),
    (2, 'b', 2024, NULL, DATE'2024-03-04', 'y'),
    (3, NULL, 2025, -2.25D, NULL, 'x'),
    (4, 'd,e "q"', 2025, 0.0D, DATE'2025-12-31', NULL),
    (5, 'e', 2026, 1e10D, DATE'2026-06-30', 'y')
    AS t(id, name, year, score, day, grp);
INSERT OVERWRITE DIRECTORY '@OUT@/parquet' USING parquet SELECT * FROM src;
INSERT OVERWRITE DIRECTORY '@OUT@/csv' USING csv OPTIONS (header 'true')
    SELECT id, name, score FROM src WHERE id > 1;
INSERT OVERWRITE DIRECTORY '@OUT@/json' USING json SELECT id, upper(name) AS name, day FROM src;
INSERT OVERWRITE DIRECTORY '@OUT@/agg' USING parquet
    SELECT year, count(*) AS n, sum(id) AS total FROM src GROUP BY year;
INSERT OVERWRITE DIRECTORY '@OUT@/range' USING parquet
    SELECT id, id * 2 AS twice FROM range(0, 1000, 1, 3);
-- overwritten: only the second query's rows stay
INSERT OVERWRITE DIRECTORY '@OUT@/again' USING json SELECT id FROM range(5);
INSERT OVERWRITE DIRECTORY '@OUT@/again' USING json SELECT id + 100 AS id FROM range(2);
-- tables: CREATE TABLE ... AS (managed under spark-warehouse, or at a LOCATION), then INSERTs
CREATE TABLE people USING parquet PARTITIONED BY (year) AS SELECT id, name, score, year FROM src;
INSERT INTO people SELECT 10, 'ten', 10.5D, 2030;
INSERT INTO TABLE people PARTITION (year = 2031) SELECT 11, 'eleven', NULL;
INSERT INTO people (name, id, year, score) SELECT 'twelve', 12, 2024, 1;
INSERT OVERWRITE people PARTITION (year = 2025) SELECT 13, 'thirteen', 2.5D;
INSERT INTO people SELECT 14S, 14, 14L, 2026L;
INSERT INTO people PARTITION (year) SELECT id + 100, name, score, year FROM src WHERE id < 3;
CREATE TABLE IF NOT EXISTS people USING parquet AS SELECT 1 AS a;
INSERT OVERWRITE DIRECTORY '@OUT@/people_read' USING parquet SELECT * FROM people;
CREATE TABLE csvt USING csv OPTIONS (header 'true') LOCATION '@OUT@/csvt'
    AS SELECT id, name FROM src WHERE id < 3;
INSERT INTO csvt SELECT 7, 'seven';
INSERT OVERWRITE DIRECTORY '@OUT@/csvt_read' USING json SELECT * FROM csvt;
CREATE TABLE jsont USING json PARTITIONED BY (grp) AS SELECT id, day, grp FROM src;
INSERT OVERWRITE TABLE jsont SELECT id + 50, day, grp FROM src WHERE id > 3;
