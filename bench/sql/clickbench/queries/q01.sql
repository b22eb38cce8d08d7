-- ClickBench Q0
-- check: multiset
SELECT COUNT(*) FROM hits;
