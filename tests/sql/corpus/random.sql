-- random.sql: Spark's seeded generators (values fixed by seed + partition index), time windows
-- read back after grouping, and array_contains at the wider type
SELECT rand(7), randn(7), uuid(7);
SELECT shuffle(array(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0), shuffle(array(1, 20, 3, 5), 42), shuffle(array('a', NULL, 'c'), 7), shuffle(CAST(NULL AS ARRAY<INT>), 1), shuffle(array(), 3);
SELECT randstr(5, 0), randstr(10, 7), randstr(0, 3), typeof(randstr(5, 0));
SELECT uniform(10, 20, 0), uniform(10.0, 20, 0), uniform(10, 20L, 3), uniform(1.5f, 2.5, 0), uniform(5, 1, 0), uniform(-3.5D, 7, 5);
SELECT typeof(uniform(10, 20, 0)), typeof(uniform(10.0, 20, 0)), typeof(uniform(1.5f, 2.5, 0)), typeof(uniform(1.5f, 2.5f, 0)), typeof(uniform(1Y, 2S, 0)), typeof(uniform(1, 2.5D, 0));
SELECT id, shuffle(array(1, 2, 3, 4, 5), 1), randstr(4, 1), uniform(0, 1000, 1), rand(3) FROM range(0, 6, 1, 3);
SELECT randstr(-1, 0);
SELECT uniform(id, 10, 0) FROM range(3);
--@ordered
SELECT window(t, '5 seconds'), sum(v) FROM VALUES (TIMESTAMP '2016-03-11 09:00:07', 1), (TIMESTAMP '2016-03-11 09:00:08', 2), (TIMESTAMP '2016-03-11 09:00:12', 4), (NULL, 8) AS w(t, v) GROUP BY window(t, '5 seconds') ORDER BY 2;
SELECT w.end, window_time(w) FROM (SELECT window(t, '10 minutes') AS w FROM VALUES (TIMESTAMP '2024-01-01 10:07:00') AS x(t) GROUP BY window(t, '10 minutes'));
SELECT array_contains(array(1L, 2L), 1Y), array_contains(array(1Y, 2Y), 2L), array_contains(array(1, 2), 2.5D), array_contains(array(1, NULL), 3), array_contains(array('a'), 'a');
SELECT array_contains(array(1, 2), NULL);
SELECT array_contains(NULL, 1);
