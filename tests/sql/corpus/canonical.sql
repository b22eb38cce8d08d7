-- One value of every type in its canonical text (tests/sql/README.md): the printing rules the
-- engine's canonical output must follow, and the file tests/sql/golden_fresh.sh reruns on Spark
-- to prove the goldens reproducible.
SELECT true, false, CAST(NULL AS BOOLEAN);
SELECT CAST(-128 AS TINYINT), CAST(32767 AS SMALLINT), -2147483648, 9223372036854775807L;
SELECT 0.1D, -0.0D, 1e16D, 1.5e-7D, 123456.789D, 1e300D * 1e10D, -1e300D * 1e10D, CAST('NaN' AS DOUBLE), 2.0D / 3;
SELECT CAST(0.1 AS FLOAT), CAST(3.4028235E38 AS FLOAT), CAST(1e-45 AS FLOAT), CAST(16777217 AS FLOAT);
SELECT 1.50, -0.001, CAST(0 AS DECIMAL(38, 18)), CAST(-12345678901234567890.12345678 AS DECIMAL(38, 8)), CAST(7 AS DECIMAL(1, 0));
SELECT 'plain', '', 'quote " and backslash \\', 'tab\tnewline\ncr\r', 'unicode é 日本 🚀', 'NULL', CAST(NULL AS STRING);
SELECT DATE '2024-02-29', DATE '0001-01-01', DATE '9999-12-31', TIMESTAMP '2024-01-02 03:04:05', TIMESTAMP '2024-01-02 03:04:05.120', TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP_NTZ '2024-01-02 03:04:05.5';
SELECT X'', X'00FF10', CAST('hé' AS BINARY);
SELECT INTERVAL '1-2' YEAR TO MONTH, INTERVAL '-3' MONTH, INTERVAL '1 02:03:04.5' DAY TO SECOND, INTERVAL '90' MINUTE, INTERVAL '0' SECOND;
SELECT array(1, NULL, 3), array(), array('a', 'b c', NULL), array(1.5D, CAST('NaN' AS DOUBLE)), array(array(1), array());
SELECT map('a', 1, 'b', NULL), map(), map(1, array('x')), named_struct('i', 1, 's', 'x', 'n', NULL), named_struct('d', DATE '2024-01-01', 'ts', TIMESTAMP '2024-01-01 00:00:00');
SELECT CAST(NULL AS ARRAY<INT>), CAST(NULL AS MAP<STRING, INT>), CAST(NULL AS STRUCT<a: INT>), array(CAST(NULL AS STRING)), array('tab\tin array');
SELECT a, b FROM VALUES ('b', 2), ('a', 3), ('a', 1), ('B', 0), (NULL, 5) AS t(a, b);
--@ordered
SELECT a, b FROM VALUES ('b', 2), ('a', 3), ('a', 1), ('B', 0), (NULL, 5) AS t(a, b) ORDER BY b DESC;
SELECT 1 AS `weird, name`, 2 AS `a:b`, 3 AS `x y`, 4;
SELECT id FROM range(3) WHERE id > 5;
SELECT 1 / 0;
SELECT nope;
SELECT CAST('x' AS INT);
