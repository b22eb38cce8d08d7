-- ClickBench Q3
-- check: multiset
SELECT AVG(UserID) FROM hits;
