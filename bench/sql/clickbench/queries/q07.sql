-- ClickBench Q6
-- check: multiset
SELECT MIN(EventDate), MAX(EventDate) FROM hits;
