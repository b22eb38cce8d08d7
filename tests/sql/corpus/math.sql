-- Arithmetic and math functions (sql-ref-ansi-compliance.md, math functions): integer '/' gives
-- double, div gives the integer quotient, %, pmod, overflow under ANSI, try_* variants, rounding
-- (HALF_UP round, HALF_EVEN bround), sqrt/exp/log/pow, trigonometry, NaN and infinities.
SELECT 7 / 2, -7 / 2, 7 div 2, -7 div 2, 7 % 3, -7 % 3, 7 % -3, pmod(-7, 3), mod(9, 4);
SELECT 1 / 3, 2.0 / 3, 10 / 4, 10L div 4L, 9 / 3;
SELECT 1 / 0;
SELECT 1 div 0;
SELECT 5 % 0;
SELECT try_divide(1, 0), try_add(2147483647, 1), try_subtract(-2147483648, 1), try_multiply(3000000000L, 4000000000L), try_mod(5, 0);
SELECT 1.0D / 0, -1.0D / 0.0D, 0.0D / 0.0D;
SELECT 2147483647 + 1;
SELECT -2147483648 - 1;
SELECT 9223372036854775807L + 1;
SELECT 3000000000L * 4000000000L;
SELECT CAST(127 AS TINYINT) + CAST(1 AS TINYINT);
SELECT CAST(32767 AS SMALLINT) * 2S;
SELECT abs(-2147483648);
SELECT -(-9223372036854775807L - 1);
SELECT 2147483647 + 1L, 2147483647 * 2L, typeof(1 + 1L), typeof(1Y + 1S), typeof(1 + 1.5), typeof(1 / 2), typeof(1L div 2);
SELECT abs(-5), abs(-5.5), abs(NULL), negative(3), positive(-3), sign(-2.5), signum(0);
SELECT round(2.5), round(-2.5), round(3.14159, 2), round(1234.5, -2), round(2.5D), round(0.125D, 2), bround(2.5), bround(3.5), bround(0.125, 2);
SELECT round(12345, -2), round(1.5E0), round(-0.5D);
SELECT ceil(2.1), ceil(-2.1), floor(2.9), floor(-2.9), ceiling(7.0), ceil(3.14159, 2), floor(3.14159, 1);
SELECT sqrt(16), sqrt(2), sqrt(-1), cbrt(27.0), exp(1), exp(0), ln(1), log(10, 1000), log10(100), log2(8), log1p(0), expm1(0);
SELECT ln(0), ln(-1), log(0.0D);
SELECT pow(2, 10), power(2.0, -1), pow(-8, 1.0 / 3), pow(0, 0);
SELECT sin(0), cos(0), tan(0), asin(1), acos(1), atan(1), atan2(1, 1), sinh(0), cosh(0), tanh(0), degrees(pi()), radians(180);
SELECT pi(), e(), factorial(5), factorial(21), hypot(3, 4), rint(2.5), rint(3.5);
SELECT greatest(1, 2.5, 3L), least(CAST(1 AS TINYINT), 2S), width_bucket(5.3, 0.2, 10.6, 5);
SELECT bin(13), shiftleft(1, 10), shiftright(1024, 3), shiftrightunsigned(-1, 28), 5 & 3, 5 | 3, 5 ^ 3, ~5, bit_count(255);
SELECT CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE), CAST('NaN' AS DOUBLE) > 1.0D, isnan(CAST('NaN' AS DOUBLE)), CAST('Infinity' AS DOUBLE) > 1e308;
SELECT x FROM VALUES (1.0D), (CAST('NaN' AS DOUBLE)), (CAST('-Infinity' AS DOUBLE)), (-0.0D), (0.0D) AS t(x);
SELECT max(x), min(x) FROM VALUES (1.0D), (CAST('NaN' AS DOUBLE)), (-5.0D) AS t(x);
SELECT 0.1D + 0.2D, 1e308 * 10, 1.5e-310, 123456789.123456789D, 1e16D, 1.0e-5D, 100.0D, CAST(1.1 AS FLOAT), CAST(0.1 AS FLOAT) * 3;
SELECT id, id * id / 7, id div 3, id % 3 FROM range(-3, 4);
SELECT sum(id), sum(id) / count(id), avg(id) FROM range(1, 101);
SELECT random(7) IS NOT NULL, rand(1) >= 0, uuid() IS NOT NULL;
SELECT 10 - 2 - 3, 2 * 3 + 4 * 5, 100 / 10 / 5, -2 * -3, +4;
-- seeded generators: XORShiftRandom(seed + partition index), one partition here
SELECT rand(0), randn(0), rand(NULL), random(42), length(uuid()), substr(uuid(), 15, 1);
--@ordered
SELECT id, rand(3), randn(3) FROM range(0, 4, 1, 1) ORDER BY id;
