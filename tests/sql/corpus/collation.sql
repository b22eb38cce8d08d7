-- Collations (sql-ref-collation.md): the string type's collation in types, schemas and casts,
-- COLLATE and collation(), the implicit/explicit precedence and its errors, and the collation's
-- semantics for comparisons, IN, ORDER BY, GROUP BY / DISTINCT and joins, for UTF8_BINARY,
-- UTF8_LCASE, UNICODE and UNICODE_CI.
CREATE TEMPORARY VIEW names AS SELECT * FROM VALUES ('Alice', 1), ('alice', 2), ('ALICE', 3), ('Bob', 4), ('bob', 5), ('b', 6), ('B', 7), ('äb', 8), ('ab', 9), ('Äb', 10) AS t(name, id);
CREATE TEMPORARY VIEW others AS SELECT * FROM VALUES ('ALICE', 'x'), ('BOB', 'y'), ('Ab', 'z') AS t(k, v);
SELECT collation('a'), collation('a' COLLATE utf8_lcase), collation('a' COLLATE UNICODE), collation('a' COLLATE unicode_ci), collation('a' COLLATE UTF8_BINARY);
SELECT typeof('a' COLLATE UNICODE_CI), typeof(CAST('a' AS STRING COLLATE UTF8_LCASE)), typeof('a');
SELECT 'a' COLLATE NOT_A_COLLATION;
SELECT 'a' COLLATE UNICODE_CI = 'A', 'a' COLLATE UTF8_LCASE = 'A', 'a' COLLATE UNICODE = 'A', 'a' = 'A';
SELECT 'a' COLLATE UNICODE_CI < 'B', 'a' COLLATE UNICODE < 'B', 'a' COLLATE UTF8_LCASE < 'B', 'a' < 'B';
SELECT 'a' COLLATE UNICODE_CI <=> 'A', 'a' COLLATE UNICODE_CI <=> NULL, 'ä' COLLATE UNICODE_CI = 'a', 'ä' COLLATE UNICODE_CI = 'Ä';
SELECT 'a' COLLATE UNICODE_CI = 'A' COLLATE UTF8_LCASE;
SELECT 'a' COLLATE UNICODE_CI IN ('A', 'b'), 'x' COLLATE UTF8_LCASE IN ('A', 'b');
SELECT name COLLATE UNICODE_CI AS n, count(*) FROM names GROUP BY 1;
SELECT lower(n), c FROM (SELECT name COLLATE UTF8_LCASE AS n, count(*) AS c FROM names GROUP BY 1);
SELECT count(DISTINCT name COLLATE UNICODE_CI), count(DISTINCT name COLLATE UTF8_LCASE), count(DISTINCT name COLLATE UNICODE), count(DISTINCT name) FROM names;
SELECT count(*) FROM (SELECT DISTINCT name COLLATE UNICODE_CI FROM names);
--@ordered
SELECT name, id FROM names ORDER BY name COLLATE UNICODE, id;
--@ordered
SELECT name, id FROM names ORDER BY name COLLATE UNICODE_CI, id;
--@ordered
SELECT name, id FROM names ORDER BY name COLLATE UTF8_LCASE, id;
--@ordered
SELECT name, id FROM names ORDER BY name, id;
SELECT n.id, o.v FROM names n JOIN others o ON n.name COLLATE UNICODE_CI = o.k;
SELECT n.id, o.v FROM names n JOIN others o ON n.name COLLATE UTF8_LCASE = o.k;
SELECT id FROM names WHERE name COLLATE UNICODE_CI = 'alice';
SELECT id FROM names WHERE name COLLATE UTF8_LCASE > 'b';
SELECT collation(name COLLATE UNICODE_CI || 'x'), collation(concat(name COLLATE UTF8_LCASE, 'x')), collation(upper(name COLLATE UNICODE)) FROM names WHERE id = 1;
SELECT concat('a' COLLATE UNICODE_CI, 'b' COLLATE UTF8_LCASE);
SELECT contains('ABC' COLLATE UNICODE_CI, 'b'), startswith('ABC' COLLATE UTF8_LCASE, 'ab'), endswith('ABC' COLLATE UNICODE_CI, 'bc'), contains('ABC', 'b');
SELECT instr('aBc' COLLATE UTF8_LCASE, 'C'), locate('C', 'aBc' COLLATE UNICODE_CI), replace('aBcb' COLLATE UTF8_LCASE, 'b', 'x'), split_part('aXbxc' COLLATE UTF8_LCASE, 'x', 2);
SELECT CAST('x' AS STRING COLLATE UNICODE_CI) = 'X', CAST(1 AS STRING COLLATE UTF8_LCASE);
SELECT name FROM names WHERE name COLLATE UNICODE_CI = 'ab';
SELECT 'A' COLLATE UNICODE_CI = 'a' COLLATE UNICODE_CI, 'A' COLLATE UNICODE_CI > 'a' COLLATE unicode_ci;
SELECT 'İ' COLLATE UTF8_LCASE = 'i̇', lower('İ'), 'ß' COLLATE UNICODE_CI = 'ss', 'ǅ' COLLATE UTF8_LCASE = 'ǆ';
SELECT hash('a' COLLATE UTF8_LCASE) = hash('A' COLLATE UTF8_LCASE), hash('a' COLLATE UNICODE_CI) = hash('A' COLLATE UNICODE_CI), hash('a' COLLATE UTF8_BINARY) = hash('a');
SELECT max(name COLLATE UNICODE_CI), min(name COLLATE UTF8_LCASE) FROM names WHERE id < 4;
SELECT 'a' COLLATE UNICODE_CI COLLATE UTF8_LCASE;
SELECT collation('a' COLLATE en_CI), collation('a' COLLATE de_CI_AI);
SELECT 'a' COLLATE UNICODE_CI = 'A' COLLATE UNICODE;
SELECT array('a' COLLATE UNICODE_CI) = array('A');
CREATE TEMPORARY VIEW lnames AS SELECT name COLLATE UTF8_LCASE AS name, id FROM names;
SELECT l.id, o.v FROM lnames l JOIN others o ON l.name = o.k;
SELECT l.id FROM lnames l JOIN names n ON l.name = n.name COLLATE UNICODE_CI WHERE l.id = 1;
SELECT name, count(*) FROM lnames GROUP BY name;
SELECT id FROM lnames WHERE name = 'bob' OR name IN ('ALICE');
SELECT count(DISTINCT name), collation(max(name)) FROM lnames;
