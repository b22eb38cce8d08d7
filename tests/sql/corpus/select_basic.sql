-- SELECT, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET, DISTINCT, VALUES and range()
-- (sql-ref-syntax-qry-select*.md). Setup views first; every statement is self-contained.
CREATE TEMPORARY VIEW emp AS SELECT * FROM VALUES
  (1, 'Ann', 'eng', 120, 10),
  (2, 'Ben', 'eng', 95, 10),
  (3, 'Cid', 'ops', 70, 20),
  (4, 'Dee', 'ops', NULL, 20),
  (5, 'Eli', 'hr', 60, NULL),
  (6, 'Fay', 'eng', 95, 10)
  AS emp(id, name, dept, salary, dept_id);

SELECT * FROM emp;
SELECT id, name FROM emp WHERE salary > 90;
SELECT name FROM emp WHERE salary IS NULL;
SELECT name FROM emp WHERE dept_id IS NOT NULL AND salary < 100;
--@ordered
SELECT id, salary FROM emp ORDER BY salary DESC NULLS LAST, id;
--@ordered
SELECT id, salary FROM emp ORDER BY salary ASC NULLS FIRST, id DESC;
--@ordered
SELECT id, salary FROM emp ORDER BY salary, id;
--@ordered
SELECT id, salary FROM emp ORDER BY salary DESC, id;
--@ordered
SELECT id FROM emp ORDER BY id LIMIT 3;
--@ordered
SELECT id FROM emp ORDER BY id LIMIT 2 OFFSET 3;
--@ordered
SELECT id FROM emp ORDER BY id OFFSET 4;
SELECT id FROM emp LIMIT 0;
SELECT dept, count(*) AS n, sum(salary) AS total FROM emp GROUP BY dept;
SELECT dept, max(salary) FROM emp GROUP BY dept HAVING max(salary) > 65;
SELECT dept, count(*) FROM emp GROUP BY 1 HAVING count(*) > 1;
--@ordered
SELECT dept, avg(salary) AS a FROM emp GROUP BY dept ORDER BY 2 DESC NULLS LAST, 1;
SELECT DISTINCT dept FROM emp;
SELECT DISTINCT dept_id, dept FROM emp;
SELECT count(DISTINCT dept), count(dept_id), count(*) FROM emp;
SELECT emp.name, e.salary FROM emp JOIN emp AS e ON emp.id = e.id WHERE emp.id < 3;
SELECT `name`, `dept` AS `the dept` FROM emp WHERE id = 1;
SELECT NAME, Dept FROM EMP WHERE ID = 2;
SELECT 1 AS one, 'x' AS s, true AS b, NULL AS n;
SELECT 1 + 2 * 3, (1 + 2) * 3, -5 % 3, 7 - -2;
SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, NULL) AS t(k, v);
VALUES (1, 2.5), (3, 4.25);
SELECT * FROM range(5);
SELECT * FROM range(2, 12, 3);
SELECT * FROM range(10, 0, -4);
SELECT id * 2 AS d FROM range(0, 6) WHERE id % 2 = 0;
SELECT count(*), sum(id), min(id), max(id) FROM range(1000);
SELECT * FROM range(0);
SELECT * FROM emp WHERE false;
SELECT count(*), sum(salary), avg(salary), max(name) FROM emp WHERE id > 100;
SELECT dept, count(*) FROM emp WHERE id > 100 GROUP BY dept;
SELECT sum(salary) FROM emp HAVING sum(salary) > 100;
SELECT t.* FROM (SELECT id, name FROM emp WHERE dept = 'ops') AS t;
SELECT id, salary FROM emp WHERE salary = (SELECT max(salary) FROM emp);
SELECT dept_id, count(*) FROM emp GROUP BY dept_id;
SELECT dept, dept_id, count(*) FROM emp GROUP BY dept, dept_id;
SELECT dept, count(*) FROM emp GROUP BY ROLLUP(dept);
SELECT dept, dept_id, count(*) FROM emp GROUP BY CUBE(dept, dept_id);
SELECT dept, dept_id, sum(salary) FROM emp GROUP BY GROUPING SETS ((dept), (dept_id), ());
SELECT dept, grouping(dept), count(*) FROM emp GROUP BY ROLLUP(dept);
SELECT * EXCEPT (salary, dept_id) FROM emp WHERE id <= 2;
SELECT a, b FROM VALUES (1, 2) AS t(a, b) WHERE a < b;
SELECT id FROM emp WHERE name IN ('Ann', 'Eli', 'Zed');
--@ordered
SELECT name, salary FROM emp ORDER BY name DESC LIMIT 2;
