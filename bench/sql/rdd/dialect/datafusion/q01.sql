-- check: ordered
-- q01 in DataFusion's SQL: no split by regex; every run of Java's \s characters (spelled out: the
-- Rust regex \s is Unicode's) made one space by regexp_replace, then string_to_array and unnest.
SELECT word, count(*) AS n
FROM (SELECT unnest(string_to_array(regexp_replace(value, '[ \t\n\x0B\f\r]+', ' ', 'g'), ' '))
               AS word
      FROM lines) w
WHERE word <> ''
GROUP BY word
ORDER BY n DESC, word;
