-- String functions (sql-ref-functions-builtin.md, string functions): substring/substr, concat,
-- concat_ws, upper/lower, trim family, split, regexp_extract/replace, length/octet/bit length,
-- lpad/rpad, instr/locate, replace, translate, initcap, reverse, repeat, format_string,
-- left/right, ascii/chr, string || and NULL propagation, UTF-8 characters.
SELECT substring('Spark SQL', 1, 5), substring('Spark SQL', 7), substring('Spark SQL', -3), substring('Spark SQL', 0, 2);
SELECT substr('hello', 2, 3), substr('hello', 10), substring('hello' FROM 2 FOR 2);
SELECT concat('a', 'b', 'c'), concat('a', NULL), 'x' || 'y' || 'z', concat();
SELECT concat_ws('-', 'a', 'b', NULL, 'c'), concat_ws(',', array('x', 'y')), concat_ws(NULL, 'a');
SELECT upper('MiXed ß'), lower('MiXed ÀÉ'), ucase('q'), lcase('Q');
SELECT trim('  pad  '), ltrim('  pad  '), rtrim('  pad  '), trim(BOTH 'x' FROM 'xxpadxx'), trim(LEADING 'x' FROM 'xxpadxx'), trim(TRAILING 'x' FROM 'xxpadxx');
SELECT btrim('__a__', '_');
SELECT split('a,b,,c', ','), split('a1b22c', '[0-9]+'), split('abc', ''), split('a,b,c', ',', 2);
SELECT split_part('11.12.13', '.', 2), split_part('a', ',', 5);
SELECT regexp_extract('foo123bar456', '([a-z]+)([0-9]+)', 2), regexp_extract('abc', '(x)?', 1), regexp_extract('2024-05-06', '(\\d+)-(\\d+)-(\\d+)', 3);
SELECT regexp_extract_all('a1b22c333', '(\\d+)', 1);
SELECT regexp_replace('a1b22c333', '[0-9]+', '#'), regexp_replace('aaa', 'a', 'b', 2);
SELECT regexp_like('Spark', '^S.*k$'), regexp_count('banana', 'an'), regexp_instr('banana', 'an+');
SELECT length('Spark'), length(''), length(NULL), char_length('héllo'), character_length('日本'), octet_length('héllo'), bit_length('ab');
SELECT length(X'010203'), len('abc');
SELECT lpad('7', 3, '0'), rpad('ab', 5, 'xy'), lpad('abcdef', 3, '*'), rpad('a', 0, 'b'), lpad('x', 4);
SELECT instr('hello', 'll'), instr('hello', 'z'), locate('l', 'hello'), locate('l', 'hello', 4), position('lo' IN 'hello');
SELECT replace('abcabc', 'b', 'XY'), replace('abc', 'b'), translate('abcde', 'bd', 'BD'), translate('abc', 'abc', 'x');
SELECT initcap('hello wORLD foo-bar'), reverse('abc'), reverse(array(1, 2, 3)), repeat('ab', 3), repeat('x', 0);
SELECT format_string('%s has %d items costing %.2f', 'cart', 3, 9.5D), printf('%05d|%-4s|', 42, 'ab');
SELECT left('Spark', 2), right('Spark', 3), left('ab', 10), right('ab', 0);
SELECT ascii('A'), ascii(''), chr(66), char(97), chr(256 + 65);
SELECT startswith('Spark', 'Sp'), endswith('Spark', 'rk'), contains('Spark', 'par'), 'Spark' LIKE 'S%';
SELECT space(3) || '|', concat('[', space(0), ']');
SELECT lower(NULL), upper(NULL), trim(NULL), substring(NULL, 1, 2), concat_ws(',', NULL);
SELECT find_in_set('b', 'a,b,c'), find_in_set('d', 'a,b,c'), elt(2, 'x', 'y', 'z'), elt(5, 'x');
SELECT overlay('Spark SQL' PLACING '_' FROM 6), overlay('Spark SQL' PLACING 'CORE' FROM 7 FOR 3);
SELECT soundex('Robert'), levenshtein('kitten', 'sitting'), substring_index('a.b.c.d', '.', 2), substring_index('a.b.c.d', '.', -1);
SELECT base64(CAST('Spark' AS BINARY)), CAST(unbase64('U3Bhcms=') AS STRING), hex('AB'), unhex('4142'), hex(255), conv('ff', 16, 10), conv('10', 10, 2);
SELECT encode('héllo', 'UTF-8'), decode(encode('abc', 'UTF-8'), 'UTF-8');
SELECT to_char(1234.5, '9,999.99'), to_number('$1,234.50', '$9,999.99');
SELECT lower(s), upper(s), length(s) FROM VALUES ('Ab'), ('ÉCOLE'), (''), (NULL) AS t(s);
SELECT s, rank FROM (SELECT s, dense_rank() OVER (ORDER BY s) AS rank FROM VALUES ('b'), ('a'), ('B'), ('A'), ('é') AS t(s));
SELECT max(s), min(s) FROM VALUES ('b'), ('a'), ('B'), ('ä') AS t(s);
SELECT 'tab\there', 'new\nline', 'quote''s', "double";
SELECT sentences('Hi there. How are you?'), mask('AbCd-123'), 'it''s' AS adjacent_literals;
SELECT str_to_map('a:1,b:2'), str_to_map('k=v;x=y', ';', '=');
SELECT 'abc' < 'abd', 'abc' = 'ABC', lower('ABC') = 'abc';
SELECT sentences('Hello world! How are you? Fine.'), sentences('One 2.5 three, four.', 'en', 'US'), sentences(NULL), sentences('');
SELECT sentences('Is it 10.5 km... or more? Mr. Smith said no.'), mask('AbCd-123', 'Q', 'q', 'd', 'o'), mask(NULL), mask('x9Y-z', NULL, NULL, NULL, NULL);
SELECT split(' a  b\t', '\\s+'), split('a,b,,c,,', ','), split(',a', ','), split('a;b c', '[; ]'), split('x1y22z', '\\d+', 2), split('a.b', '\\.'), split('é,ü', ','), split('a-b_c', '[\\w]+');
SELECT split(value, '\\s+', -1), split(value, '[ ,]+', 1), size(split(value, ',')) FROM VALUES ('one two  three'), (' lead'), ('trail,, '), (''), (NULL) AS t(value);
