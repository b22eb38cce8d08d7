-- ClickBench Q19
-- check: multiset
SELECT UserID FROM hits WHERE UserID = 435090932899640449;
