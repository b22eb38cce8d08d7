-- ClickBench Q20
-- check: multiset
SELECT COUNT(*) FROM hits WHERE URL LIKE '%google%';
