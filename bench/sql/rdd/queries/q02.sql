-- check: ordered
-- Join (examples/join.c: left.join(right) of two key/value inputs on the key, every m x n pair of
-- a key): the inner join of left_kv and right_kv on key, summed into one row: the pairs, the
-- distinct keys that joined, the left and right values' sums, a per-pair checksum (each pair's
-- (left * 1000003 + right) mod 1000000007, summed) and the least and greatest pair as
-- key|left|right.
SELECT count(*) AS pairs,
       count(DISTINCT l.key) AS keys,
       sum(CAST(l.value AS BIGINT)) AS left_sum,
       sum(CAST(substr(r.value, 2) AS BIGINT)) AS right_sum,
       sum((CAST(l.value AS BIGINT) * 1000003 + CAST(substr(r.value, 2) AS BIGINT)) % 1000000007)
         AS pair_checksum,
       min(concat(l.key, '|', l.value, '|', r.value)) AS first_pair,
       max(concat(l.key, '|', l.value, '|', r.value)) AS last_pair
FROM left_kv l JOIN right_kv r ON l.key = r.key;
