-- ClickBench Q5
-- check: multiset
SELECT COUNT(DISTINCT SearchPhrase) FROM hits;
