-- Other query clauses (sql-ref-syntax-qry-select-distribute-by.md, -sortby.md, -clusterby.md,
-- -hints.md, -tvf.md, -pivot.md, -sampling.md, -inline-table.md, -transform.md): DISTRIBUTE BY,
-- SORT BY, CLUSTER BY, partitioning hints, PIVOT/UNPIVOT, TABLESAMPLE over the whole table,
-- LIMIT over an ordered subquery, SELECT over nested types (arrays, maps, structs) and their
-- functions.
CREATE TEMPORARY VIEW p AS SELECT * FROM VALUES ('a', 'q1', 10), ('a', 'q2', 20), ('b', 'q1', 5), ('b', 'q3', 1), ('a', 'q1', 3) AS p(name, qtr, amt);

SELECT name, amt FROM p DISTRIBUTE BY name;
SELECT name, amt FROM p SORT BY amt;
SELECT name, amt FROM p CLUSTER BY name;
SELECT name, amt FROM p DISTRIBUTE BY name SORT BY amt DESC;
SELECT /*+ REPARTITION(3) */ name, amt FROM p;
SELECT /*+ COALESCE(1) */ count(*) FROM p;
SELECT /*+ REPARTITION_BY_RANGE(amt) */ amt FROM p;
SELECT /*+ REBALANCE */ name FROM p;
SELECT * FROM p PIVOT (sum(amt) FOR qtr IN ('q1', 'q2', 'q3'));
SELECT * FROM p PIVOT (sum(amt) AS s, count(*) AS c FOR qtr IN ('q1' AS first, 'q3' AS third));
SELECT * FROM (SELECT 1 AS id, 10 AS a, 20 AS b) UNPIVOT (val FOR col IN (a, b));
SELECT * FROM p TABLESAMPLE (100 PERCENT);
SELECT count(*) FROM p TABLESAMPLE (0 PERCENT);
SELECT * FROM p TABLESAMPLE (50 ROWS) WHERE amt > 0;
SELECT array(1, 2, 3)[0], array(1, 2, 3)[3], map('a', 1, 'b', 2)['b'], named_struct('x', 1, 'y', 'z').y;
SELECT element_at(array(1, 2, 3), -1), element_at(map(1, 'a'), 1), try_element_at(array(1), 5);
SELECT array_contains(array(1, 2), 2), array_distinct(array(1, 1, 2)), array_union(array(1, 2), array(2, 3)), array_intersect(array(1, 2), array(2, 3)), array_except(array(1, 2), array(2));
SELECT array_position(array(3, 4), 4), array_remove(array(1, 2, 1), 1), arrays_overlap(array(1), array(2)), array_join(array('a', NULL, 'c'), '-', '?'), flatten(array(array(1), array(2, 3)));
SELECT slice(array(1, 2, 3, 4), 2, 2), sort_array(array(3, NULL, 1), false), array_max(array(1, 5, 2)), array_min(array(1, 5, 2)), array_repeat('x', 2), sequence(5, 1, -2);
SELECT transform(array(1, 2, 3), x -> x * 10), filter(array(1, 2, 3, 4), x -> x % 2 = 0), aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x), exists(array(1, 2), x -> x > 1), forall(array(1, 2), x -> x > 1);
SELECT map_keys(map('a', 1, 'b', 2)), map_values(map('a', 1, 'b', 2)), map_from_arrays(array('x', 'y'), array(1, 2)), map_concat(map('a', 1), map('b', 2)), map_contains_key(map('a', 1), 'a');
SELECT map_from_entries(array(struct('k', 1))), map_entries(map('z', 0)), map_filter(map('a', 1, 'b', 2), (k, v) -> v > 1), transform_values(map('a', 1), (k, v) -> v + 1);
SELECT zip_with(array(1, 2), array(10, 20), (a, b) -> a + b), arrays_zip(array(1, 2), array('a', 'b')), struct(1 AS a, 'b' AS b), named_struct('n', NULL);
SELECT s.a, s.b FROM (SELECT named_struct('a', 1, 'b', array('x', 'y')) AS s);
SELECT array(array(1, 2), array(3)), map('k', map('i', 1)), array(named_struct('d', DATE '2024-01-01', 'v', 1.5D));
SELECT array(1.0D, 1e20D, CAST('NaN' AS DOUBLE)), array(CAST(1.25 AS DECIMAL(5, 3))), map(1, NULL), array(TIMESTAMP '2024-01-01 00:00:00');
SELECT name, sort_array(collect_list(named_struct('q', qtr, 'a', amt))) FROM p GROUP BY name;
--@ordered
SELECT * FROM (SELECT * FROM p ORDER BY amt DESC LIMIT 2);
SELECT name, amt FROM p WHERE amt > (SELECT avg(amt) FROM p) DISTRIBUTE BY name;
SELECT size(array()), size(NULL), size(map()), array() = array(), cardinality(array(1, NULL));
SELECT sort_array(array('b', 'A', 'a', 'B')), array_sort(array(3, 1, 2), (l, r) -> r - l);
SELECT typeof(array(1, 2L)), typeof(map('a', 1.5)), typeof(named_struct('x', 1Y)), typeof(array());
SELECT array(1, 2) = array(1, 2), named_struct('a', 1) = named_struct('a', 1), array(1, NULL) = array(1, NULL);
SELECT get_json_object('{"a": {"b": [1, 2]}}', '$.a.b[1]'), json_tuple('{"x": 1, "y": "z"}', 'x', 'y'), to_json(named_struct('a', 1, 'b', array(1))), from_json('{"a": 5}', 'a INT');
SELECT name, sort_array(collect_set(named_struct('q', qtr, 'n', named_struct('a', amt)))) FROM p GROUP BY name;
SELECT s, count(*), sum(amt) FROM (SELECT named_struct('q', qtr, 'big', amt > 4) AS s, amt FROM p) GROUP BY s;
SELECT s.q, count(*) FROM (SELECT IF(amt > 9, NULL, named_struct('q', qtr)) AS s FROM p) GROUP BY s;
