-- Predicates and conditional expressions (sql-ref-null-semantics.md, conditional and predicate
-- functions): CASE, IF, COALESCE, NULLIF, NVL, NVL2, IFNULL, IN, BETWEEN, LIKE, ILIKE, RLIKE,
-- three-valued AND/OR/NOT, <=>, comparisons of mixed types.
CREATE TEMPORARY VIEW c AS SELECT * FROM VALUES (1, 'apple', true), (2, 'Banana', false), (3, NULL, NULL), (NULL, 'cherry_pie', true) AS c(n, s, b);

SELECT n, CASE WHEN n = 1 THEN 'one' WHEN n = 2 THEN 'two' ELSE 'many' END FROM c;
SELECT n, CASE n WHEN 1 THEN 'one' WHEN 3 THEN 'three' END FROM c;
SELECT n, CASE WHEN n > 1 THEN n * 10 ELSE 0.5 END FROM c;
SELECT n, IF(n > 1, 'big', 'small') FROM c;
SELECT IF(NULL, 1, 2), IF(true, NULL, 2);
SELECT coalesce(NULL, NULL, 3), coalesce(NULL, 'x'), coalesce(NULL);
SELECT n, coalesce(s, 'none') FROM c;
SELECT nullif(1, 1), nullif(1, 2), nullif('a', NULL);
SELECT nvl(NULL, 5), nvl2(NULL, 1, 2), nvl2(0, 1, 2), ifnull(NULL, 'd');
SELECT n FROM c WHERE n IN (1, 3);
SELECT n FROM c WHERE n NOT IN (1, 3);
SELECT 1 IN (1, NULL), 2 IN (1, NULL), 2 NOT IN (1, NULL), NULL IN (1);
SELECT n FROM c WHERE n BETWEEN 2 AND 3;
SELECT n FROM c WHERE n NOT BETWEEN 2 AND 3;
SELECT 5 BETWEEN 1 AND NULL, 5 BETWEEN 6 AND NULL;
SELECT s FROM c WHERE s LIKE '%an%';
SELECT s FROM c WHERE s LIKE '_pple';
SELECT s FROM c WHERE s LIKE 'cherry\_%';
SELECT s FROM c WHERE s NOT LIKE 'a%';
SELECT s FROM c WHERE s ILIKE 'b%';
SELECT s FROM c WHERE s RLIKE '^[a-c].*e$';
SELECT s FROM c WHERE s REGEXP 'an{1}a';
SELECT 'abc' LIKE 'a%c', 'abc' LIKE 'A%', 'a%c' LIKE 'a/%c' ESCAPE '/';
SELECT s LIKE ANY ('a%', 'B%') FROM c;
SELECT true AND NULL, false AND NULL, true OR NULL, false OR NULL, NOT NULL;
SELECT n, b, NOT b, b AND n > 1, b OR n > 1 FROM c;
SELECT NULL = NULL, NULL <=> NULL, 1 <=> NULL, 1 <=> 1, 1 <> NULL;
SELECT 1 = 1.0, '1' = 1, 2 > 1.5, 'b' > 'a', 'B' < 'a';
SELECT n, s IS NULL, s IS NOT NULL, b IS TRUE, b IS NOT FALSE, b IS UNKNOWN FROM c;
SELECT count(*) FROM c WHERE b;
SELECT count(*) FROM c WHERE NOT b;
SELECT greatest(1, 5, 3), least(1, 5, 3), greatest(1, NULL, 3), least('b', 'a');
SELECT isnull(NULL), isnotnull(1), nanvl(CAST('NaN' AS DOUBLE), 1.0D), equal_null(NULL, NULL);
SELECT CASE WHEN 1 > 0 THEN 'yes' END, CASE WHEN 1 < 0 THEN 'yes' END;
SELECT n, CASE WHEN s IS NULL THEN 'missing' WHEN length(s) > 6 THEN 'long' ELSE s END FROM c;
SELECT array(named_struct('x', 1, 'y', array(1, 2)), named_struct('x', 2L, 'y', array())), typeof(array(named_struct('x', 1, 'y', array(1, 2)), named_struct('x', 2L, 'y', array())));
SELECT coalesce(named_struct('a', 1, 'B', 'u'), named_struct('A', 2.5, 'B', NULL)), typeof(coalesce(named_struct('a', 1, 'B', 'u'), named_struct('A', 2.5, 'B', NULL)));
SELECT if(true, named_struct('a', array(1)), named_struct('a', array(NULL))), nvl(NULL, named_struct('k', map('x', 1)));
SELECT coalesce(named_struct('a', 1), named_struct('b', 1));
SELECT array(named_struct('a', 1), named_struct('a', 1, 'b', 2));
