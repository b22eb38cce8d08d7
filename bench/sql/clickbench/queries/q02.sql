-- ClickBench Q1
-- check: multiset
SELECT COUNT(*) FROM hits WHERE AdvEngineID <> 0;
