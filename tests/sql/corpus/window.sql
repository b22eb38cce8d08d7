-- Window functions (sql-ref-syntax-qry-select-window.md, ranking/analytic functions): row_number,
-- rank, dense_rank, percent_rank, cume_dist, ntile, lag, lead, first_value, last_value, nth_value,
-- aggregates over ROWS and RANGE frames, partitions with NULL keys. Every ORDER BY inside a
-- window is total where the function depends on the order of ties.
CREATE TEMPORARY VIEW w AS SELECT * FROM VALUES
  ('a', 1, 10), ('a', 2, 20), ('a', 3, 20), ('a', 4, NULL), ('b', 1, 5), ('b', 2, 7), ('b', 5, 7), (NULL, 1, 1)
  AS w(g, t, v);

SELECT g, t, row_number() OVER (PARTITION BY g ORDER BY t) AS rn FROM w;
SELECT g, t, v, rank() OVER (PARTITION BY g ORDER BY v) AS rk FROM w;
SELECT g, t, v, dense_rank() OVER (PARTITION BY g ORDER BY v DESC) AS dr FROM w;
SELECT g, t, v, percent_rank() OVER (PARTITION BY g ORDER BY v) AS pr FROM w;
SELECT g, t, v, cume_dist() OVER (PARTITION BY g ORDER BY v) AS cd FROM w;
SELECT g, t, ntile(2) OVER (PARTITION BY g ORDER BY t) AS nt FROM w;
SELECT g, t, v, lag(v) OVER (PARTITION BY g ORDER BY t) AS prev FROM w;
SELECT g, t, v, lag(v, 2, -1) OVER (PARTITION BY g ORDER BY t) AS prev2 FROM w;
SELECT g, t, v, lead(v) OVER (PARTITION BY g ORDER BY t) AS nxt FROM w;
SELECT g, t, v, lead(v, 1, 0) OVER (PARTITION BY g ORDER BY t) AS nxt FROM w;
SELECT g, t, v, first_value(v) OVER (PARTITION BY g ORDER BY t) AS fv FROM w;
SELECT g, t, v, last_value(v) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lv FROM w;
SELECT g, t, v, last_value(v, true) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lv FROM w;
SELECT g, t, v, nth_value(v, 2) OVER (PARTITION BY g ORDER BY t) AS n2 FROM w;
SELECT g, t, v, sum(v) OVER (PARTITION BY g ORDER BY t) AS running FROM w;
SELECT g, t, v, sum(v) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s2 FROM w;
SELECT g, t, v, sum(v) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS s2 FROM w;
SELECT g, t, v, avg(v) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS a3 FROM w;
SELECT g, t, v, count(v) OVER (PARTITION BY g ORDER BY t ROWS UNBOUNDED PRECEDING) AS c FROM w;
SELECT g, t, v, sum(v) OVER (PARTITION BY g ORDER BY t RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS r FROM w;
SELECT g, t, v, sum(t) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS r FROM w;
SELECT g, t, v, max(v) OVER (PARTITION BY g ORDER BY t RANGE BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS m FROM w;
SELECT g, t, v, sum(t) OVER (PARTITION BY g ORDER BY v) AS r FROM w;
SELECT g, t, v, min(v) OVER (PARTITION BY g) AS mn, max(v) OVER (PARTITION BY g) AS mx FROM w;
SELECT g, t, count(*) OVER () AS total FROM w;
SELECT g, t, sum(v) OVER (ORDER BY g NULLS FIRST, t) AS acc FROM w;
SELECT g, t, row_number() OVER win AS rn, sum(v) OVER win AS s FROM w WINDOW win AS (PARTITION BY g ORDER BY t);
SELECT * FROM (SELECT g, t, v, row_number() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST, t) AS rn FROM w) WHERE rn = 1;
--@ordered
SELECT g, t, rank() OVER (ORDER BY t) AS rk FROM w ORDER BY g NULLS LAST, t;
SELECT g, sum(v), rank() OVER (ORDER BY sum(v) DESC) AS rk FROM w GROUP BY g;
SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 PRECEDING) AS x FROM range(5);
SELECT id, lag(id, 0) OVER (ORDER BY id) AS same FROM range(3);
SELECT g, t, v FROM w QUALIFY row_number() OVER (PARTITION BY g ORDER BY t DESC) = 1;
SELECT g, t, v, sum(v) OVER (PARTITION BY g ORDER BY t) FROM w WHERE false;
SELECT id, ntile(3) OVER (ORDER BY id) AS bucket FROM range(7);
