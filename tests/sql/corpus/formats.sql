-- Number formats, structs, intervals and table-valued generators (sql-ref-functions-builtin.md,
-- sql-ref-datatypes.md, sql-ref-syntax-qry-select-tvf.md): to_char / to_number / try_to_number,
-- struct(... AS name), struct casts, string-interval casts, make_interval and its kin, window(),
-- explode and its kin in FROM, with NULLs, empty inputs and errors.
SELECT to_char(1234.5, '9,999.99'), to_char(-12.3, 'S999.99'), to_char(0.5, '0.00'), to_char(7, '000');
SELECT to_char(12, '$99'), to_char(CAST(NULL AS DECIMAL(3,1)), '99.9'), to_char(12345, '99'), to_char(-5, '99MI');
SELECT to_number('123', '999'), to_number('-12.5', 'S99.9'), to_number('1,234', '9,999'), to_number('$45', '$99');
SELECT to_number(NULL, '999'), to_number('12', '000'), to_number('0.5', '9.99');
SELECT to_number('abc', '999');
SELECT try_to_number('abc', '999'), try_to_number('5', '9'), try_to_number('1.2', '9.9');
SELECT to_number('12', 'x');
SELECT struct(1 AS a, 'x' AS b).a, struct(2 AS n), struct(NULL AS z);
SELECT CAST(named_struct('a', '1', 'b', 2) AS STRUCT<x: INT, y: STRING>);
SELECT CAST(named_struct('a', 'x') AS STRUCT<a: INT>);
SELECT CAST(CAST(NULL AS STRUCT<a: STRING>) AS STRUCT<a: INT>), CAST(named_struct('c', 1.5D) AS STRUCT<c: DECIMAL(3,1)>);
SELECT CAST(named_struct('a', 1) AS STRUCT<a: INT, b: INT>);
SELECT CAST('1' AS INTERVAL YEAR), CAST('-2' AS INTERVAL MONTH), CAST('3-4' AS INTERVAL YEAR TO MONTH);
SELECT CAST('5' AS INTERVAL DAY), CAST('1 02:03:04.5' AS INTERVAL DAY TO SECOND), CAST('10:30' AS INTERVAL HOUR TO MINUTE);
SELECT CAST('INTERVAL \'7\' DAY' AS INTERVAL DAY), CAST(CAST(NULL AS STRING) AS INTERVAL YEAR);
SELECT CAST('x' AS INTERVAL DAY);
SELECT CAST(INTERVAL '1-2' YEAR TO MONTH AS STRING), CAST(INTERVAL '3 04:05:06' DAY TO SECOND AS STRING);
SELECT make_interval(1, 2), make_interval(), make_interval(0, 0, 1, 2, 3, 4, 5.25);
SELECT make_interval(NULL, 1), make_dt_interval(), make_dt_interval(2), make_ym_interval(), make_ym_interval(1);
SELECT make_dt_interval(NULL, 1), make_ym_interval(-1, -2), make_dt_interval(0, 0, 0, -1.5);
SELECT window(TIMESTAMP '2024-01-01 10:07:00', '10 minutes'), window(TIMESTAMP '2024-01-01 10:07:00', '1 hour').end;
SELECT window.start, count(*) FROM VALUES (TIMESTAMP '2024-01-01 10:01:00'), (TIMESTAMP '2024-01-01 10:04:00'), (TIMESTAMP '2024-01-01 10:06:00') AS t(ts) GROUP BY window(ts, '5 minutes');
SELECT window(CAST(NULL AS TIMESTAMP), '5 minutes');
SELECT * FROM explode(array());
SELECT * FROM explode(map('a', 1, 'b', 2));
SELECT x FROM explode(array(1, 2)) AS t(x);
SELECT * FROM posexplode(array('p', 'q'));
SELECT * FROM inline(array(named_struct('i', 1, 's', 'a'), named_struct('i', 2, 's', 'b')));
SELECT * FROM explode_outer(CAST(NULL AS ARRAY<INT>));
SELECT DATE '2024-01-01' + DATE '2024-01-02';
SELECT INTERVAL '1' YEAR + INTERVAL '1' HOUR;
SELECT INTERVAL 'abc' HOUR;
--@ordered
SELECT window.start, window.end, sum(v) FROM VALUES (TIMESTAMP '2024-01-01 10:01:00', 1), (TIMESTAMP '2024-01-01 10:12:00', 2), (TIMESTAMP '2024-01-01 10:19:59', 3), (CAST(NULL AS TIMESTAMP), 5) AS t(ts, v) GROUP BY window(ts, '10 minutes') ORDER BY window.start;
