-- Datetime patterns, array sets and builders, maps, regexp counting, format_string, nested
-- hashing and comparison, charsets (sql-ref-datetime-pattern.md and the function reference):
-- each with its null inputs, empty arrays and the errors Spark raises.
SELECT date_format(TIMESTAMP '2024-01-05 03:04:05.123456', 'yyyy-MM-dd HH:mm:ss.SSS'), date_format(TIMESTAMP '2024-12-31 23:59:59', 'D Q QQQ E a K k'), date_format(CAST(NULL AS TIMESTAMP), 'yyyy'), date_format(TIMESTAMP '2024-01-05 03:04:05', CAST(NULL AS STRING));
SELECT date_format(DATE '2024-07-04', 'MMMM dd, yyyy (EEE)'), date_format(TIMESTAMP '0099-01-01 00:00:00', 'yyyy yy y G'), date_format(TIMESTAMP '2024-03-05 00:00:00', '''quoted'' ''T''HH');
SELECT date_format(TIMESTAMP '2024-03-05 14:00:00', 'h:mm a, LLL, SSSSSS, XXX, Z, O');
SELECT to_timestamp('2024-03-05 7:8:9', 'yyyy-MM-dd H:m:s'), to_timestamp('20240305', 'yyyyMMdd'), to_timestamp('2024-03-05 10:11:12.5', 'yyyy-MM-dd HH:mm:ss.SSS'), to_timestamp(NULL, 'yyyy');
SELECT to_timestamp('2024-03-05 10:11 +02:00', 'yyyy-MM-dd HH:mm XXX'), to_timestamp('Mar 5 2024 01:02 PM', 'MMM d yyyy hh:mm a'), to_date('2024/3/5', 'yyyy/M/d'), to_date('2024-03-05 23:00', 'yyyy-MM-dd HH:mm');
SELECT try_to_timestamp('2024-13-01', 'yyyy-MM-dd'), try_to_timestamp('x', 'yyyy'), try_to_timestamp('2024-01-01 10:00:00'), try_to_timestamp('junk');
SELECT to_timestamp('2024-01-01 extra', 'yyyy-MM-dd');
SELECT unix_timestamp('1970-01-02', 'yyyy-MM-dd'), to_unix_timestamp('2024-01-01 00:00:01', 'yyyy-MM-dd HH:mm:ss'), from_unixtime(86400, 'yyyy-MM-dd HH:mm'), from_unixtime(CAST(NULL AS BIGINT)), unix_timestamp(DATE '1970-01-02', 'yyyy');
SELECT date_format(TIMESTAMP '2024-01-01 00:00:00', 'yyyy-ww');
SELECT date_format(TIMESTAMP '2024-01-01 00:00:00', 'MMMMM');
SELECT to_timestamp('2024-01-01 Mon', 'yyyy-MM-dd EEE');
SELECT months_between(TIMESTAMP '2024-02-29 00:00:00', TIMESTAMP '2024-01-31 00:00:00'), months_between(DATE '2024-01-01', CAST(NULL AS DATE)), months_between(TIMESTAMP '2024-01-01 10:00:00', TIMESTAMP '2024-01-02 00:00:00', false);
SELECT array_union(array(1, NULL), array(NULL, 2)) AS c1, array_intersect(array(1, NULL, 1), array(NULL, 1)) AS c2, array_except(array(1, NULL, 2), array(2)) AS c3, array_except(array(1), array(1)) AS c4, array_union(CAST(NULL AS ARRAY<INT>), array(1)) AS c5;
SELECT array_union(array('a', 'b'), array('B', 'a')), array_intersect(array(1.5D, CAST('NaN' AS DOUBLE)), array(CAST('NaN' AS DOUBLE))), array_except(array('x', 'x', 'y'), array('y'));
SELECT arrays_overlap(array(1, NULL), array(2)) AS c1, arrays_overlap(array(1), array(1, NULL)) AS c2, arrays_overlap(array_remove(array(1), 1), array(CAST(NULL AS INT))) AS c3, arrays_overlap(array(1), CAST(NULL AS ARRAY<INT>)) AS c4;
SELECT flatten(array(array(1, 2), array(3))) AS c1, flatten(array(array(1), NULL)) AS c2, flatten(CAST(NULL AS ARRAY<ARRAY<INT>>)) AS c3, array_repeat('a', -1) AS c4, array_repeat(1, CAST(NULL AS INT)) AS c5, array_repeat(CAST(NULL AS STRING), 2) AS c6;
SELECT array_join(array('a', NULL, 'b'), ',') AS c1, array_join(array('a', NULL), ',', 'N') AS c2, array_join(array('a'), CAST(NULL AS STRING)) AS c3, array_join(CAST(NULL AS ARRAY<STRING>), ',') AS c4;
SELECT sequence(1, 1), sequence(-2, 2), sequence(10, 1, -3), sequence(1, CAST(NULL AS INT)), sequence(CAST(1 AS BIGINT), 3);
SELECT regexp_count('aaa', 'a*'), regexp_count(CAST(NULL AS STRING), 'a'), regexp_count('abc', ''), regexp_instr('hello world', 'o', 0), regexp_instr('abc', 'z'), regexp_instr('abcabc', '(b)(c)', 2);
SELECT regexp_extract_all('a1b2', '([a-z])(\\d)', 2), regexp_extract_all('xyz', '(\\d)'), regexp_extract_all('ab', 'a|(b)', 1), regexp_extract_all(CAST(NULL AS STRING), 'a');
SELECT regexp_extract_all('a1', '(\\d)', 3);
SELECT format_string('%5s|%-5s|%.1s', 'ab', 'cd', 'xyz'), format_string('%x %X %o', 255, 255, 8), format_string('%,d %+d %(d', 1234567, 5, -3), format_string('%08.3f|%e', -3.14159D, 12345.678D), format_string('%s %s', NULL, 1.5D);
SELECT format_string('%b %c %%', NULL, 65), format_string('%2$s %1$s', 'a', 'b'), format_string(CAST(NULL AS STRING), 1), format_string('%.2f', 0.125D), format_string('%.3e', 0D), printf('%s', 12L);
SELECT hash(array(1, NULL, 3)) AS c1, hash(array_remove(array(1), 1)) AS c2, xxhash64(named_struct('a', CAST(NULL AS INT), 'b', 'x')) AS c3, hash(array(array('a'), array('b', NULL))) AS c4, xxhash64(CAST(NULL AS ARRAY<INT>)) AS c5;
SELECT xxhash64(array(map('a', 1)));
SELECT array(1, 2) < array(1, 3) AS c1, array(1) < array(1, 0) AS c2, array(CAST(NULL AS INT)) < array(1) AS c3, named_struct('a', 1, 'b', 'x') > named_struct('a', 1, 'b', 'w') AS c4, array(1) <=> CAST(NULL AS ARRAY<INT>) AS c5, array(1, NULL) = array(1, 2) AS c6;
SELECT map_concat(map(1, 'a'), map(2, CAST(NULL AS STRING))) AS c1, map_concat(map(1, 'a'), CAST(NULL AS MAP<INT, STRING>)) AS c2, map_from_arrays(array(1, 2), array('x', NULL)) AS c3, map_contains_key(map(1, 'a'), 2) AS c4, map_entries(map(1, CAST(NULL AS STRING))) AS c5;
SELECT map_concat(map(1, 'a'), map(1, 'b'));
SELECT map_from_arrays(array(1, 2), array('x'));
SELECT map_from_entries(array(struct(1, 'a'), struct(2, 'b'))) AS c1, map_from_entries(array(struct(1, 'a'), NULL)) AS c2, map_from_entries(CAST(NULL AS ARRAY<STRUCT<k: INT, v: STRING>>)) AS c3;
SELECT encode('Ab', 'UTF-16'), encode('Ab', 'utf-16le'), decode(X'C3A9', 'UTF-8'), decode(X'FEFF0041', 'UTF-16'), encode(CAST(NULL AS STRING), 'UTF-8'), encode('', 'UTF-16');
SELECT encode('a', 'EBCDIC');
