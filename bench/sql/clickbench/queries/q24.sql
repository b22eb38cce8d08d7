-- ClickBench Q23
-- check: rank 5
SELECT * FROM hits WHERE URL LIKE '%google%' ORDER BY EventTime LIMIT 10;
