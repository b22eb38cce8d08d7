-- ClickBench Q2
-- check: multiset
SELECT SUM(AdvEngineID), COUNT(*), AVG(ResolutionWidth) FROM hits;
