-- check: ordered
-- q01 in DuckDB's SQL: no explode/split by regex; regexp_split_to_array with Java's \s spelled out
-- (RE2's \s lacks \x0B) and unnest.
SELECT word, count(*) AS n
FROM (SELECT unnest(regexp_split_to_array(value, '[ \t\n\x0B\f\r]+')) AS word FROM lines) w
WHERE word <> ''
GROUP BY word
ORDER BY n DESC, word;
