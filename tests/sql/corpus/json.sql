-- JSON functions (sql-ref-functions-builtin.md, JSON functions): get_json_object, json_tuple,
-- from_json, to_json and schema_of_json over objects, arrays, JSON null, invalid JSON, NULL and
-- empty input, and their argument errors.
CREATE TEMPORARY VIEW js AS SELECT * FROM VALUES (1, '{"a": 1, "b": "x", "c": [1, 2]}'), (2, '{"a": null}'), (3, 'not json'), (4, NULL), (5, '{}') AS js(id, j);

SELECT id, get_json_object(j, '$.a'), get_json_object(j, '$.b'), get_json_object(j, '$.c') FROM js;
SELECT get_json_object('{"a": [{"b": 1}, {"b": 2}]}', '$.a[*].b'), get_json_object('{"a": 1}', 'a'), get_json_object('{"a": 1}', NULL);
SELECT id, json_tuple(j, 'a', 'b', 'z') FROM js;
SELECT json_tuple('{"a": {"x": 1}, "b": [1, 2], "c": true, "d": 1.5, "e": null}', 'a', 'b', 'c', 'd', 'e');
SELECT id, t.a, t.b FROM js LATERAL VIEW json_tuple(j, 'a', 'b') t AS a, b;
SELECT json_tuple('', 'a'), json_tuple('{"a": "q"}', NULL);
SELECT to_json(named_struct('a', 1, 'b', CAST(NULL AS STRING)));
SELECT to_json(array(1, 2, NULL)), to_json(map('k', 1.5)), to_json(array());
SELECT to_json(named_struct('d', DATE '2024-01-02', 't', TIMESTAMP '2024-01-02 03:04:05', 'f', true));
SELECT to_json(array(named_struct('s', 'x"y\\z', 'n', array(map('m', 2.5D)))));
SELECT to_json(CAST(NULL AS STRUCT<a: INT>)), to_json(named_struct('e', CAST(NULL AS ARRAY<INT>)));
SELECT id, from_json(j, 'a INT, b STRING') FROM js;
SELECT from_json('{"a": [1, 2], "m": {"k": 3}, "s": {"t": "u"}}', 'a ARRAY<INT>, m MAP<STRING, INT>, s STRUCT<t: STRING>');
SELECT from_json('{"a": 5, "b": 2.5, "c": true}', 'a BIGINT, b DOUBLE, c BOOLEAN, d STRING');
SELECT from_json('[1, 2]', 'ARRAY<INT>'), from_json('{"x": 1}', 'MAP<STRING, INT>');
SELECT from_json('{"a": 5}', 'a INT').a, from_json(NULL, 'a INT'), from_json('', 'a INT');
SELECT schema_of_json('{"a": 1, "b": [1.5], "c": "x", "d": null, "e": {"f": true}}');
SELECT schema_of_json('[1, 2]'), schema_of_json('1'), schema_of_json('{}');
SELECT from_json('{"a": 1}', 'a INTT');
SELECT to_json(1);
SELECT get_json_object('{"a": 1}');
SELECT json_tuple('{"a": 1}');
