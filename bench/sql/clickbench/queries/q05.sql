-- ClickBench Q4
-- check: multiset
SELECT COUNT(DISTINCT UserID) FROM hits;
