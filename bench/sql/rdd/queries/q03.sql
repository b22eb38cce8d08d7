-- check: ordered
-- Sort (bench/spark_vs_cspark.sh's sort.so, TeraSort-style: sortByKey of 100-byte records): every
-- record numbered by its place in the global order of (key, id), then summed so that any other
-- order changes the answer: the records, a position-weighted checksum (each record's place times
-- a number from the last two hex digits of its id), the records out of key order with respect to
-- the one before, the first and last id. A window over the whole table: no engine can answer it
-- without sorting every record, and none turns it into a top-N.
SELECT count(*) AS records,
       sum(pos * (ascii(substr(id, 32, 1)) + 7 * ascii(substr(id, 31, 1)))) AS checksum,
       sum(CASE WHEN prev_key > key THEN 1 ELSE 0 END) AS out_of_order,
       min(CASE WHEN pos = 1 THEN id END) AS first_id,
       max(CASE WHEN pos = n THEN id END) AS last_id
FROM (SELECT key, id,
             row_number() OVER (ORDER BY key, id) AS pos,
             lag(key) OVER (ORDER BY key, id) AS prev_key,
             count(*) OVER () AS n
      FROM records) s;
