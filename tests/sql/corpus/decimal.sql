-- Decimal precision and scale (sql-ref-datatypes.md, DecimalPrecision rules): literal types,
-- result types of + - * / % and aggregates, precision loss adjustment
-- (spark.sql.decimalOperations.allowPrecisionLoss, default true), overflow to
-- NUMERIC_VALUE_OUT_OF_RANGE under ANSI, mixing with integers and doubles, rounding.
SELECT 1.5, typeof(1.5), 0.001, typeof(0.001), 123.450, typeof(123.450), -0.0, 1BD, typeof(12345678901234567890);
SELECT 1.10 + 2.205, typeof(1.10 + 2.205), 1.10 - 2.205, 1.10 * 2.205, typeof(1.10 * 2.205);
SELECT 1.0 / 3, typeof(1.0 / 3), 10.00 / 4.0, typeof(10.00 / 4.0), 2.5 % 1.2, typeof(2.5 % 1.2);
SELECT CAST(1 AS DECIMAL(38, 10)) / CAST(3 AS DECIMAL(38, 10)), typeof(CAST(1 AS DECIMAL(38, 10)) / CAST(3 AS DECIMAL(38, 10)));
SELECT CAST(12345678901234567890.123 AS DECIMAL(38, 3)) * CAST(1000.001 AS DECIMAL(10, 3)), typeof(CAST(12345678901234567890.123 AS DECIMAL(38, 3)) * CAST(1000.001 AS DECIMAL(10, 3)));
SELECT CAST(99999999999999999999999999999999999999 AS DECIMAL(38, 0)) + 1;
SELECT CAST(9999999999999999999999999999999999999.9 AS DECIMAL(38, 1)) * 10;
SELECT try_add(CAST(99999999999999999999999999999999999999 AS DECIMAL(38, 0)), 1BD);
SELECT 1.5 + 1, typeof(1.5 + 1), 1.5 + 1L, typeof(1.5 + 1L), 1.5 * CAST(2 AS TINYINT), typeof(1.5 * CAST(2 AS TINYINT));
SELECT 1.5 + 1.5D, typeof(1.5 + 1.5D), 0.1 + 0.2, 0.1D + 0.2;
SELECT 3 / 1.5, typeof(3 / 1.5), 3 div 1.5;
SELECT 1.5 / 0;
SELECT 1.5 div 0.0;
SELECT round(2.345, 2), round(-2.345, 2), bround(2.345, 2), round(2.5, 0), typeof(round(2.345, 2)), round(123.456, -1), typeof(round(123.456, -1));
SELECT floor(-1.5), ceil(-1.5), typeof(floor(1.55)), abs(-1.25), -(1.25), typeof(-(1.25));
SELECT sum(d), avg(d), typeof(sum(d)), typeof(avg(d)), min(d), max(d) FROM VALUES (1.10), (2.25), (NULL), (3.005) AS t(d);
SELECT sum(CAST(d AS DECIMAL(38, 2))) FROM VALUES (1.10), (2.20) AS t(d);
SELECT sum(d) FROM (SELECT CAST('99999999999999999999999999999999999.99' AS DECIMAL(37, 2)) AS d FROM range(20));
SELECT avg(CAST(id AS DECIMAL(5, 0))), typeof(avg(CAST(id AS DECIMAL(5, 0)))) FROM range(1, 4);
SELECT CAST(0.000001 AS DECIMAL(7, 6)) * CAST(0.000001 AS DECIMAL(7, 6)), CAST(1 AS DECIMAL(38, 37)) * 2;
SELECT CAST('0.1' AS DECIMAL(38, 38)), CAST(-99.99 AS DECIMAL(4, 2)), CAST(0 AS DECIMAL(10, 5));
SELECT d, d * 2, d / 7 FROM VALUES (CAST(1.00 AS DECIMAL(5, 2))), (CAST(-3.33 AS DECIMAL(5, 2))), (NULL) AS t(d);
SELECT 12345678901234567890123456789.5 + 0.5, 0.00000000000000000000000000000000000001 * 10;
SELECT CAST(1.23456789 AS DECIMAL(10, 2)) = 1.23, 1.20 = 1.2, 1.2 > 1.19999, CAST(1 AS DECIMAL(3, 2)) IN (1, 2);
SELECT greatest(1.5, 2.25, 1), least(1.5, 2), coalesce(NULL, 1.5, 2), CASE WHEN true THEN 1.5 ELSE 10 END;
SELECT CAST(d AS INT), CAST(d AS DOUBLE), CAST(d AS STRING) FROM VALUES (123.456), (-0.5) AS t(d);
SELECT CAST(1e20 AS DECIMAL(20, 0)), CAST(12.5D AS DECIMAL(3, 1)), CAST(CAST('NaN' AS DOUBLE) AS DECIMAL(5, 1));
