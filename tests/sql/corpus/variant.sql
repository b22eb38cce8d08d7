-- The VARIANT type (sql-ref-datatypes.md, sql-ref-functions-builtin.md's variant functions):
-- parse_json / try_parse_json (numbers keep Spark's types: the smallest integer, plain decimals,
-- doubles), to_json and CAST(v AS STRING), variant_get / try_variant_get with paths and target
-- types (scalars, structs, arrays, maps, variant), is_variant_null, schema_of_variant,
-- to_variant_object, casts to and from VARIANT, variants inside arrays and structs, and the
-- errors: malformed JSON, invalid paths and casts, variants where values must be ordered.
SELECT parse_json('{"b":1,"a":[1.50,true,null,"x"],"c":{"d":-0.0}}'), typeof(parse_json('1'));
SELECT to_json(parse_json('{"b":1,"a":[1.50,true,null,"x"]}')), CAST(parse_json('[1e3, 12345678901234567890, 1.0E-2, 0.1]') AS STRING);
SELECT hex(CAST(parse_json('{"b":1,"a":[1.50,true]}') AS BINARY));
SELECT parse_json('{"a":1,"a":2}');
SELECT parse_json('{bad');
SELECT try_parse_json('{bad'), try_parse_json('"s"'), parse_json(NULL), parse_json('null'), is_variant_null(parse_json('null')), is_variant_null(parse_json('1')), is_variant_null(NULL);
SELECT variant_get(parse_json('{"a":{"b":[10,"20",3.5]}}'), '$.a.b[1]', 'int'), variant_get(parse_json('{"a":{"b":[10,"20",3.5]}}'), '$.a.b', 'string'), variant_get(parse_json('{"a":1}'), '$.x', 'int');
SELECT variant_get(parse_json('{"a":"x"}'), '$.a', 'int');
SELECT try_variant_get(parse_json('{"a":"x"}'), '$.a', 'int'), try_variant_get(parse_json('[1,2]'), '$[1]', 'double'), variant_get(parse_json('[1,2]'), '$[5]'), variant_get(parse_json('{"a":[1]}'), '$.a');
SELECT schema_of_variant(parse_json('{"b":1,"a":[1.50,true,null,"x"],"c":{"d":-0.0,"e":1e10}}')), schema_of_variant(parse_json('null')), schema_of_variant(parse_json('[1, 2.5, "a"]'));
SELECT CAST(1 AS VARIANT), CAST('x' AS VARIANT), CAST(1.5D AS VARIANT), CAST(DATE'2024-01-02' AS VARIANT), CAST(TIMESTAMP'2024-01-02 03:04:05.6' AS VARIANT), CAST(array(1,2) AS VARIANT), CAST(named_struct('z',1,'y','s') AS VARIANT);
SELECT to_variant_object(named_struct('z',1,'y',map('k',2))), to_variant_object(array(named_struct('a',1))), schema_of_variant(to_variant_object(named_struct('z',1.5,'y',CAST(1 AS TINYINT))));
SELECT to_variant_object(1);
SELECT variant_get(parse_json('{"a":1}'), '$.a', 'bad_type');
SELECT variant_get(parse_json('{"a":1}'), 'a', 'int');
SELECT CAST(parse_json('12') AS INT), CAST(parse_json('"abc"') AS STRING), CAST(parse_json('true') AS BOOLEAN), CAST(parse_json('1.25') AS DECIMAL(5,1)), CAST(parse_json('"2024-01-02"') AS DATE);
SELECT variant_get(parse_json('{"a":{"b":1},"c":[1,{"d":2}]}'), '$', 'struct<a:struct<b:int>,c:array<string>>'), variant_get(parse_json('{"a":1}'), '$', 'map<string,int>');
SELECT parse_json('"\\u00e9\\n\\"q"'), to_json(parse_json('{"k\\"":"v"}')), parse_json('  [ ]  '), parse_json('{}'), parse_json('1.0'), parse_json('1E2'), parse_json('-9223372036854775808'), parse_json('9223372036854775808');
SELECT parse_json('123456789012345678901234567890123456789'), parse_json('0.00000000000000000000000000000000000001'), parse_json('1.5e300'), parse_json('3.14159265358979323846');
SELECT v, count(*) FROM (SELECT parse_json('1') AS v) GROUP BY v;
SELECT parse_json('1') = parse_json('1');
SELECT schema_of_variant(parse_json('[1, 2.5]')), schema_of_variant(parse_json('[1.5, 2.25]')), schema_of_variant(parse_json('[1, 2.5e0]')), schema_of_variant(parse_json('[1.5, 2.5e0]')), schema_of_variant(parse_json('[{"a":1},{"b":"x"}]')), schema_of_variant(parse_json('[[1],[null]]')), schema_of_variant(parse_json('[1, null, 2]')), schema_of_variant(parse_json('{"a b":1, "`c":2}'));
SELECT to_json(CAST(TIMESTAMP'2024-01-02 03:04:05.6' AS VARIANT)), to_json(CAST(TIMESTAMP_NTZ'2024-01-02 03:04:05' AS VARIANT)), to_json(CAST(DATE'2024-01-02' AS VARIANT)), to_json(CAST(X'0102ff' AS VARIANT)), to_json(CAST(1.5F AS VARIANT)), to_json(CAST(CAST(100.00 AS DECIMAL(5,2)) AS VARIANT)), to_json(CAST(array(1,NULL) AS VARIANT));
SELECT CAST(CAST(TIMESTAMP'2024-01-02 03:04:05.6' AS VARIANT) AS STRING), CAST(CAST(X'0102ff' AS VARIANT) AS STRING), CAST(CAST(1.5F AS VARIANT) AS STRING), CAST(CAST(true AS VARIANT) AS STRING), CAST(CAST(INTERVAL '1' DAY AS VARIANT) AS STRING);
SELECT schema_of_variant(CAST(CAST(100.00 AS DECIMAL(5,2)) AS VARIANT)), schema_of_variant(CAST(1.5F AS VARIANT)), schema_of_variant(CAST(X'01' AS VARIANT)), schema_of_variant(CAST(CAST(1 AS TINYINT) AS VARIANT)), schema_of_variant(parse_json('"s"'));
SELECT to_json(parse_json('"a\\u0001\\t/\\u007f\\u00e9"')), to_json(parse_json('{"z":{"y":[]},"a":""}')), variant_get(parse_json('{"a":1}'), '$["a"]', 'int'), variant_get(parse_json('{"a":1}'), '$[\'a\']', 'int'), variant_get(parse_json('{"a":[1,2]}'), '$.a[-1]', 'int');
SELECT variant_get(parse_json('1.9'), '$', 'int'), variant_get(parse_json('300'), '$', 'tinyint'), variant_get(parse_json('"1.5"'), '$', 'double'), variant_get(parse_json('true'), '$', 'int'), variant_get(parse_json('1'), '$', 'boolean'), variant_get(parse_json('"2024-01-02 10:00:00"'), '$', 'timestamp'), variant_get(parse_json('null'), '$', 'int'), variant_get(parse_json('null'), '$', 'variant');
SELECT variant_get(parse_json('300'), '$', 'tinyint');
SELECT try_variant_get(parse_json('300'), '$', 'tinyint'), try_variant_get(parse_json('[1]'), '$', 'int'), try_variant_get(parse_json('{"a":1}'), '$', 'string'), variant_get(parse_json('1e20'), '$', 'decimal(10,2)');
SELECT variant_get(parse_json('{"a":1}'), '$.a', 'variant'), hex(CAST(variant_get(parse_json('{"a":1}'), '$.a', 'variant') AS STRING));
SELECT variant_get(parse_json('{"a":1}'), '$.a', NULL);
SELECT variant_get(parse_json('{"a":1}'), NULL, 'int'), variant_get(parse_json('{"a":1}'), '$', 'int');
SELECT to_variant_object(named_struct('a', CAST(NULL AS INT), 'b', array(1)));
SELECT is_variant_null(CAST(NULL AS VARIANT)), CAST(NULL AS VARIANT), to_json(CAST(NULL AS VARIANT)), schema_of_variant(CAST(NULL AS VARIANT));
SELECT parse_json('1 2');
SELECT parse_json('[1,]');
SELECT parse_json(''), try_parse_json('');
SELECT parse_json(1);
SELECT parse_json('{"a":1}') IS NULL, coalesce(parse_json('1'), parse_json('2')), if(true, parse_json('[1]'), NULL), array(parse_json('1'), parse_json('"x"')), named_struct('v', parse_json('{"k":true}'));
SELECT v FROM (SELECT parse_json('1') AS v UNION ALL SELECT parse_json('[2]')) ORDER BY 1;
SELECT CAST(parse_json('{"a":1}') AS STRUCT<a:INT>), CAST(parse_json('[1,2]') AS ARRAY<INT>), CAST(CAST(array(1,2) AS VARIANT) AS ARRAY<STRING>);
SELECT CAST(CAST(map('a',1) AS VARIANT) AS STRING);
SELECT to_json(named_struct('v', parse_json('{"k":[1,"x"]}'))), to_json(array(parse_json('1')));
SELECT CAST(parse_json('"x"') AS VARIANT), CAST('{"a":1}' AS VARIANT), CAST(12345678901 AS VARIANT), CAST(CAST(1 AS SMALLINT) AS VARIANT);
SELECT variant_get(parse_json('null'), '$', 'string'), variant_get(parse_json('null'), '$', 'variant'), variant_get(parse_json('null'), '$', 'int'), variant_get(parse_json('{"a":null}'), '$.a'), is_variant_null(variant_get(parse_json('{"a":null}'), '$.a'));
SELECT variant_get(parse_json('1.9'), '$', 'int'), variant_get(parse_json('"1.5"'), '$', 'double'), variant_get(parse_json('true'), '$', 'int'), variant_get(parse_json('1'), '$', 'boolean'), variant_get(parse_json('"2024-01-02 10:00:00"'), '$', 'timestamp');
SELECT try_variant_get(parse_json('300'), '$', 'tinyint'), try_variant_get(parse_json('[1]'), '$', 'int'), try_variant_get(parse_json('{"a":1}'), '$', 'string'), try_variant_get(parse_json('1e20'), '$', 'decimal(10,2)'), try_variant_get(parse_json('"x"'), '$', 'binary'), try_variant_get(parse_json('1'), '$', 'binary');
SELECT variant_get(parse_json('1'), '$', 'binary');
SELECT variant_get(parse_json('{"a":1,"b":"x"}'), '$', 'struct<b:string,c:int>'), try_variant_get(parse_json('{"a":"x"}'), '$', 'struct<a:int>'), variant_get(parse_json('[1,null]'), '$', 'array<int>'), variant_get(parse_json('{"a":[1,{"b":2}]}'), '$.a[1].b', 'string');
SELECT variant_get(parse_json('{"a":"x"}'), '$', 'struct<a:int>');
SELECT variant_get(parse_json('1e-7'), '$', 'string'), variant_get(parse_json('0.0000001'), '$', 'string'), variant_get(parse_json('100.0'), '$', 'string'), CAST(CAST(TIMESTAMP'2024-01-02 03:04:05' AS VARIANT) AS STRING), CAST(CAST(X'41' AS VARIANT) AS STRING), variant_get(parse_json('123.450'), '$', 'decimal(5,2)');
SELECT variant_get(parse_json('{"a":1}'), '$.a', 'string'), variant_get(v, p, 'int') FROM VALUES (parse_json('{"a":5}'), '$.a'), (parse_json('[7]'), '$[0]') AS t(v, p);
SELECT try_variant_get(parse_json('[1]'), p, 'int') FROM VALUES ('x') AS t(p);
SELECT to_json(parse_json('{"a":1}')) IS NULL, parse_json('"\\ud83d\\ude00"'), hex(to_json(parse_json('{"\\ud83d\\ude00":1,"\\uffff":2}')));
SELECT array(parse_json('"x"'), parse_json('null')), map('k', parse_json('"s"')), named_struct('a', parse_json('"q"'));
-- schema_of_variant_agg (Spark's SchemaOfVariantAgg): the merged schema of a group's variants.
SELECT schema_of_variant_agg(v) FROM VALUES (parse_json('{"a":1}')), (parse_json('{"b":"x","a":2.5}')), (NULL) AS t(v);
SELECT schema_of_variant_agg(v) FROM VALUES (CAST(NULL AS VARIANT)) AS t(v) WHERE false;
SELECT schema_of_variant_agg(v), schema_of_variant_agg(parse_json('null')) FROM VALUES (CAST(NULL AS VARIANT)) AS t(v);
SELECT k, schema_of_variant_agg(v) FROM VALUES (1, parse_json('1')), (1, parse_json('1.5')), (2, parse_json('"s"')), (2, parse_json('[1]')), (3, parse_json('null')), (4, parse_json('[{"a":1e0},{"b":true}]')), (4, parse_json('[{"a":1,"c":[]}]')), (5, parse_json('12345678901234567890')), (5, parse_json('0.000001')) AS t(k, v) GROUP BY k;
SELECT k, schema_of_variant_agg(v) FROM (SELECT id % 3 AS k, parse_json(CASE WHEN id % 2 = 0 THEN '{"x":' || id || '}' ELSE '{"y":"' || id || '"}' END) AS v FROM range(0, 5000, 1, 4)) GROUP BY k;
SELECT schema_of_variant_agg(v) FROM (SELECT parse_json(CASE WHEN id = 2999 THEN '{"z":[1.5]}' ELSE '{"k' || (id % 7) || '":' || id || '}' END) AS v FROM range(0, 3000, 1, 3));
SELECT schema_of_variant_agg(1);
SELECT schema_of_variant_agg(parse_json('{"a b":1}')), typeof(schema_of_variant_agg(parse_json('1')));
-- variant_explode / variant_explode_outer (Spark's VariantExplode): table-valued functions only.
SELECT * FROM variant_explode(parse_json('{"b":1,"a":[2,3],"c":{"d":null}}'));
SELECT * FROM variant_explode(parse_json('[1,"x",null,{"k":2}]'));
SELECT * FROM variant_explode(parse_json('1'));
SELECT * FROM variant_explode_outer(parse_json('1'));
SELECT * FROM variant_explode(NULL);
SELECT * FROM variant_explode_outer(NULL);
SELECT * FROM variant_explode(parse_json('[]'));
SELECT * FROM variant_explode_outer(parse_json('{}'));
SELECT pos, key, schema_of_variant(value), to_json(value) FROM variant_explode(parse_json('{"a":{"b":[1]},"c":"s"}'));
SELECT id, pos, key, value FROM VALUES (1, parse_json('{"x":true}')), (2, parse_json('5')), (3, parse_json('[7,8]')) AS t(id, v), LATERAL variant_explode_outer(v);
SELECT id, pos, key, value FROM VALUES (1, parse_json('{"x":true}')), (2, parse_json('5')), (3, parse_json('[7,8]')) AS t(id, v), LATERAL variant_explode(v);
SELECT e.pos, e.key, variant_get(e.value, '$', 'int') FROM VALUES (parse_json('{"p":1,"q":2}')) AS t(v), LATERAL variant_explode(v) AS e;
SELECT count(*), sum(pos) FROM range(0, 1000, 1, 2) AS r, LATERAL variant_explode(parse_json('[' || r.id || ',' || (r.id + 1) || ']'));
SELECT * FROM variant_explode(1);
SELECT * FROM variant_explode(parse_json('1'), 2);
SELECT variant_explode(parse_json('[1,2]'));
SELECT id, p FROM VALUES (1, parse_json('[1]')) AS t(id, v) LATERAL VIEW variant_explode(v) e AS p, k, w;
