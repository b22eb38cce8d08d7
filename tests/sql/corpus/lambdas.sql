-- Higher-order functions and lambdas (sql-ref-functions-builtin.md, "Lambda Functions" and the
-- array and map functions that take them): transform with the element and its index, filter,
-- exists and forall with nulls (three-valued), aggregate / reduce with and without a finish,
-- zip_with over arrays of different lengths, map_filter, transform_keys, transform_values,
-- array_sort with a comparator; lambdas reading the row's columns, lambdas inside lambdas, a
-- lambda variable hiding a column, higher-order functions over aggregates and in WHERE.
CREATE TEMPORARY VIEW arr AS SELECT * FROM VALUES (1, array(1, 2, 3), map('a', 1, 'b', 2)), (2, NULL, NULL), (3, array(), map()), (4, array(4, NULL, 6), map('c', NULL)) AS arr(id, xs, m);

SELECT id, transform(xs, x -> x + id) FROM arr;
SELECT id, transform(xs, (x, i) -> x * 10 + i) FROM arr;
SELECT id, filter(xs, x -> x > 1), filter(xs, (x, i) -> i > 0) FROM arr;
SELECT id, exists(xs, x -> x > 3), exists(xs, x -> x > 5), forall(xs, x -> x > 0), forall(xs, x -> x > 1) FROM arr;
SELECT id, aggregate(xs, 0, (acc, x) -> acc + coalesce(x, 0)), reduce(xs, 0L, (acc, x) -> acc + coalesce(x, 100), acc -> acc * 2) FROM arr;
SELECT id, aggregate(xs, 0, (acc, x) -> acc + x) FROM arr;
SELECT id, zip_with(xs, array('p', 'q'), (a, b) -> concat(coalesce(cast(a AS STRING), '-'), coalesce(b, '_'))) FROM arr;
SELECT id, map_filter(m, (k, v) -> v > 1 OR k = 'a'), transform_values(m, (k, v) -> v * 100), transform_keys(m, (k, v) -> upper(k)) FROM arr;
SELECT id, transform(xs, x -> transform(xs, y -> x * y)) FROM arr;
SELECT id, transform(xs, id -> id * 2) FROM arr;
SELECT id, array_sort(xs, (l, r) -> CASE WHEN l IS NULL THEN 1 WHEN r IS NULL THEN -1 WHEN l < r THEN 1 WHEN l > r THEN -1 ELSE 0 END) FROM arr;
SELECT array_sort(array('bb', 'a', 'ccc'), (l, r) -> length(l) - length(r)), array_sort(array(3, 1, 2), (l, r) -> 0);
SELECT id FROM arr WHERE exists(xs, x -> x = 2);
SELECT id % 2 AS k, transform(collect_list(id), x -> x * 10) FROM arr GROUP BY id % 2;
SELECT transform(array(named_struct('a', 1, 'b', 'x')), s -> s.b), filter(array(array(1), array(2, 3)), a -> size(a) > 1);
SELECT aggregate(array(1, 2), 0, (acc, x) -> acc + 1.5);
SELECT transform(array(1), x -> x + 1, 2);
SELECT transform(1, x -> x);
SELECT filter(array(1, 2), x -> x + 1);
SELECT transform_keys(map('a', 1, 'b', 2), (k, v) -> 'same');
