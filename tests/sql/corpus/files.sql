-- Tables over files (sql-ref-syntax-ddl-create-table-datasource.md, sql-ref-syntax-qry-select-
-- file.md): the small Parquet and CSV tables tests/sql/data/make_tables.py writes into ${DATA}
-- (the runner substitutes the directory), read through CREATE TEMPORARY VIEW ... USING, direct
-- parquet.`path` queries, joins between files and a missing path.
CREATE TEMPORARY VIEW people USING parquet OPTIONS (path '${DATA}/people.parquet');
CREATE TEMPORARY VIEW people_csv USING csv OPTIONS (path '${DATA}/people.csv', header 'true', inferSchema 'true');
CREATE TEMPORARY VIEW people_csv_typed (id INT, name STRING, age INT, city STRING, salary DECIMAL(10, 2), hired DATE) USING csv OPTIONS (path '${DATA}/people.csv', header 'true');
CREATE TEMPORARY VIEW sales USING parquet OPTIONS (path '${DATA}/sales.parquet');

SELECT * FROM people;
SELECT * FROM people_csv;
SELECT * FROM people_csv_typed;
SELECT * FROM sales;
SELECT city, count(*), avg(age), sum(salary) FROM people GROUP BY city;
SELECT p.name, sum(s.amount) AS total, sum(s.qty) FROM people p JOIN sales s ON p.id = s.person_id GROUP BY p.name;
SELECT p.name FROM people p LEFT ANTI JOIN sales s ON p.id = s.person_id;
SELECT day, count(*), round(sum(amount), 2) FROM sales WHERE day BETWEEN DATE '2024-01-04' AND DATE '2024-01-08' GROUP BY day;
--@ordered
SELECT name, salary FROM people WHERE salary IS NOT NULL ORDER BY salary DESC LIMIT 3;
SELECT count(*), min(hired), max(hired) FROM parquet.`${DATA}/people.parquet`;
SELECT id, name FROM csv.`${DATA}/people.csv`;
SELECT a.id, a.salary = b.salary FROM people a JOIN people_csv_typed b ON a.id = b.id;
SELECT person_id, amount, sum(amount) OVER (PARTITION BY person_id ORDER BY sale_id) FROM sales;
SELECT * FROM parquet.`${DATA}/no_such_file.parquet`;
