-- Hash functions (hash functions of sql-ref-functions-builtin.md): hash (Murmur3, seed 42) and
-- xxhash64 (seed 42) over every type Spark hashes, several arguments and NULLs, md5, sha1, sha2,
-- crc32.
SELECT hash(1), hash(1L), hash(CAST(1 AS TINYINT)), hash(CAST(1 AS SMALLINT)), hash(1.5D), hash(CAST(1.5 AS FLOAT)), hash(true), hash(false);
SELECT hash('Spark'), hash(''), hash(NULL), hash('日本語'), hash(X'00FF'), hash(DATE '2024-01-01'), hash(TIMESTAMP '2024-01-01 00:00:00');
SELECT hash(1, 'a', 2.5D), hash(NULL, 1), hash(1, NULL), hash(0.0D), hash(-0.0D);
SELECT hash(CAST(1.5 AS DECIMAL(10, 2))), hash(CAST(1.5 AS DECIMAL(20, 2))), hash(array(1, 2)), hash(named_struct('a', 1, 'b', 'x')), hash(map('k', 1));
SELECT xxhash64(1), xxhash64(1L), xxhash64('Spark'), xxhash64(''), xxhash64(NULL), xxhash64(1.5D), xxhash64(true);
SELECT xxhash64(1, 'a', 2.5D), xxhash64(DATE '2024-01-01'), xxhash64(CAST(1.5 AS DECIMAL(10, 2))), xxhash64(CAST(1.5 AS DECIMAL(20, 2))), xxhash64(array('a', NULL, 'b'));
SELECT id, hash(id), xxhash64(id), hash(CAST(id AS INT)), hash(CAST(id AS STRING)) FROM range(-2, 5);
SELECT md5('Spark'), md5(''), sha1('Spark'), sha('abc'), sha2('Spark', 256), sha2('Spark', 512), sha2('Spark', 0), crc32('Spark');
SELECT md5(NULL), sha2('x', 7), crc32(X'');
SELECT pmod(hash(s), 4) AS bucket, count(*) FROM VALUES ('a'), ('b'), ('c'), ('d'), ('e'), ('f') AS t(s) GROUP BY pmod(hash(s), 4);
SELECT hash(CAST(NULL AS STRING), 'x'), xxhash64(CAST(NULL AS INT), 5);
SELECT hash(CAST('NaN' AS DOUBLE)), hash(1e300), hash(CAST(123456789012345678 AS DECIMAL(38, 0)));
