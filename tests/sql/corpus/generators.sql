-- Generators (sql-ref-syntax-qry-select-lateral-view.md, generator functions): explode,
-- explode_outer, posexplode, inline, stack, LATERAL VIEW [OUTER], on arrays and maps, empty and
-- NULL inputs.
CREATE TEMPORARY VIEW arr AS SELECT * FROM VALUES (1, array(10, 20)), (2, array()), (3, NULL), (4, array(30, NULL)) AS arr(id, xs);

SELECT explode(array(1, 2, 3)) AS x;
SELECT explode(map('a', 1, 'b', 2));
SELECT posexplode(array('x', 'y'));
SELECT id, x FROM arr LATERAL VIEW explode(xs) t AS x;
SELECT id, x FROM arr LATERAL VIEW OUTER explode(xs) t AS x;
SELECT id, pos, x FROM arr LATERAL VIEW posexplode(xs) t AS pos, x;
SELECT id, explode(xs) AS x FROM arr;
SELECT id, explode_outer(xs) AS x FROM arr;
SELECT id, k, v FROM VALUES (1, map('p', 1, 'q', 2)) AS m(id, mp) LATERAL VIEW explode(mp) t AS k, v;
SELECT inline(array(struct(1, 'a'), struct(2, 'b')));
SELECT stack(2, 1, 'one', 2, 'two');
SELECT id, a, b FROM range(2) LATERAL VIEW explode(array(1, 2)) t1 AS a LATERAL VIEW explode(array('u', 'v')) t2 AS b;
SELECT x, count(*) FROM arr LATERAL VIEW explode(xs) t AS x GROUP BY x;
SELECT * FROM explode(array(5, 6));
SELECT id, size(xs), cardinality(xs) FROM arr;
SELECT explode(sequence(1, 5, 2)) AS s;
