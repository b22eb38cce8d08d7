-- Common table expressions and subqueries (sql-ref-syntax-qry-select-cte.md,
-- sql-ref-syntax-qry-select-subqueries.md): scalar, IN, NOT IN with NULLs, EXISTS, NOT EXISTS,
-- correlated in WHERE and SELECT, derived tables.
CREATE TEMPORARY VIEW dept AS SELECT * FROM VALUES (10, 'eng'), (20, 'ops'), (30, 'hr'), (40, 'legal') AS dept(did, dname);
CREATE TEMPORARY VIEW staff AS SELECT * FROM VALUES
  (1, 10, 100), (2, 10, 80), (3, 20, 70), (4, 20, NULL), (5, 30, 60), (6, NULL, 90)
  AS staff(sid, did, pay);

WITH t AS (SELECT 1 AS a UNION ALL SELECT 2) SELECT * FROM t;
WITH t(a, b) AS (SELECT 1, 2) SELECT a + b FROM t;
WITH t1 AS (SELECT did, sum(pay) AS s FROM staff GROUP BY did), t2 AS (SELECT * FROM t1 WHERE s > 70) SELECT * FROM t2;
WITH t AS (SELECT sid FROM staff) SELECT count(*) FROM t x JOIN t y ON x.sid = y.sid;
WITH t AS (SELECT 5 AS v) SELECT (WITH u AS (SELECT v * 2 AS w FROM t) SELECT w FROM u) AS nested;
WITH t AS (SELECT 1 AS c) SELECT * FROM t WHERE c IN (WITH t AS (SELECT 1 AS c) SELECT c FROM t);
SELECT sid, (SELECT max(pay) FROM staff) AS top FROM staff WHERE sid < 3;
SELECT (SELECT dname FROM dept WHERE did = 20) AS name;
SELECT (SELECT dname FROM dept WHERE did = 99) AS none;
SELECT (SELECT dname FROM dept) AS many;
SELECT sid FROM staff WHERE did IN (SELECT did FROM dept WHERE dname <> 'eng');
SELECT sid FROM staff WHERE did NOT IN (SELECT did FROM dept WHERE dname = 'eng');
SELECT did FROM dept WHERE did NOT IN (SELECT did FROM staff);
SELECT did FROM dept WHERE did NOT IN (SELECT did FROM staff WHERE did IS NOT NULL);
SELECT did FROM dept d WHERE EXISTS (SELECT 1 FROM staff s WHERE s.did = d.did);
SELECT did FROM dept d WHERE NOT EXISTS (SELECT 1 FROM staff s WHERE s.did = d.did);
SELECT did FROM dept d WHERE EXISTS (SELECT 1 FROM staff s WHERE s.did = d.did AND s.pay > 75);
SELECT sid, pay FROM staff s WHERE pay > (SELECT avg(pay) FROM staff t WHERE t.did = s.did);
SELECT d.dname, (SELECT count(*) FROM staff s WHERE s.did = d.did) AS n FROM dept d;
SELECT d.dname, (SELECT sum(pay) FROM staff s WHERE s.did = d.did) AS total FROM dept d;
SELECT sid FROM staff s WHERE s.did IN (SELECT did FROM dept d WHERE d.did = s.did AND dname LIKE '%s');
SELECT * FROM (SELECT did, count(*) AS n FROM staff GROUP BY did) x WHERE n > 1;
SELECT * FROM dept WHERE did = (SELECT min(did) FROM staff);
SELECT sid FROM staff WHERE (did, pay) IN (SELECT did, max(pay) FROM staff GROUP BY did);
SELECT count(*) FROM staff WHERE pay > ALL (SELECT 50);
SELECT EXISTS (SELECT 1 FROM staff WHERE pay > 95) AS e1, EXISTS (SELECT 1 FROM staff WHERE pay > 150) AS e2;
SELECT sid FROM staff WHERE did IN (SELECT did FROM dept WHERE false);
SELECT sid FROM staff WHERE did NOT IN (SELECT did FROM dept WHERE false);
SELECT dname FROM dept d WHERE 2 <= (SELECT count(*) FROM staff s WHERE s.did = d.did);
SELECT did, dname FROM dept WHERE did IN (10, 30) AND EXISTS (SELECT * FROM staff WHERE pay IS NULL);
