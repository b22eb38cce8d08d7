-- Date, timestamp and interval functions (sql-ref-datetime-pattern.md, sql-ref-literals.md,
-- date/timestamp functions): literals, date_add/sub, datediff, add_months, months_between,
-- year/month/day/..., extract, date_trunc/trunc, to_date/to_timestamp with patterns,
-- date_format, unix times, make_date, last_day, next_day, intervals and their arithmetic.
-- Session time zone: UTC.
SELECT DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59.999999', TIMESTAMP_NTZ '2020-01-01 00:00:00';
SELECT date_add(DATE '2024-02-28', 1), date_add(DATE '2024-12-31', 1), date_sub(DATE '2024-03-01', 1), date_add(DATE '2024-01-31', -31);
SELECT datediff(DATE '2024-03-01', DATE '2024-02-01'), datediff(DATE '2023-01-01', DATE '2024-01-01');
SELECT add_months(DATE '2024-01-31', 1), add_months(DATE '2023-01-31', 1), add_months(DATE '2024-05-15', -14);
SELECT months_between(DATE '2024-03-31', DATE '2024-02-29'), months_between(TIMESTAMP '2024-03-15 12:00:00', TIMESTAMP '2024-01-01 00:00:00'), months_between(DATE '2024-01-10', DATE '2024-03-05', false);
SELECT year(DATE '2024-07-04'), month(DATE '2024-07-04'), day(DATE '2024-07-04'), dayofmonth(DATE '2024-07-04'), dayofweek(DATE '2024-07-04'), weekday(DATE '2024-07-04'), dayofyear(DATE '2024-07-04'), quarter(DATE '2024-07-04'), weekofyear(DATE '2024-07-04');
SELECT hour(TIMESTAMP '2024-07-04 13:14:15.5'), minute(TIMESTAMP '2024-07-04 13:14:15.5'), second(TIMESTAMP '2024-07-04 13:14:15.5');
SELECT extract(YEAR FROM DATE '1999-12-31'), extract(MONTH FROM TIMESTAMP '2024-05-06 07:08:09'), extract(DOW FROM DATE '2024-07-04'), extract(SECOND FROM TIMESTAMP '2024-05-06 07:08:09.25');
SELECT date_part('day', DATE '2024-05-06'), date_part('hour', TIMESTAMP '2024-05-06 07:08:09'), extract(DAY FROM INTERVAL '5 10:00:00' DAY TO SECOND);
SELECT date_trunc('YEAR', TIMESTAMP '2024-05-06 07:08:09'), date_trunc('MONTH', TIMESTAMP '2024-05-06 07:08:09'), date_trunc('DAY', TIMESTAMP '2024-05-06 07:08:09'), date_trunc('HOUR', TIMESTAMP '2024-05-06 07:08:09'), date_trunc('WEEK', TIMESTAMP '2024-05-08 07:08:09'), date_trunc('QUARTER', TIMESTAMP '2024-05-06 07:08:09');
SELECT trunc(DATE '2024-05-06', 'MM'), trunc(DATE '2024-05-06', 'YEAR'), trunc(DATE '2024-05-06', 'week'), trunc(DATE '2024-05-06', 'xx');
SELECT to_date('2024-03-05'), to_date('05/03/2024', 'dd/MM/yyyy'), to_date('2024-03-05 10:00:00');
SELECT to_timestamp('2024-03-05 10:11:12'), to_timestamp('05.03.2024 10:11', 'dd.MM.yyyy HH:mm'), to_timestamp('2024-03-05T10:11:12.123Z');
SELECT try_to_timestamp('nope'), to_date('2024-02-30', 'yyyy-MM-dd');
SELECT to_date('not a date');
SELECT date_format(TIMESTAMP '2024-03-05 14:07:09', 'yyyy/MM/dd HH:mm:ss'), date_format(DATE '2024-03-05', 'EEEE, MMM d, y'), date_format(TIMESTAMP '2024-03-05 14:07:09', 'hh a');
SELECT unix_timestamp(TIMESTAMP '2024-01-01 00:00:00'), from_unixtime(0), from_unixtime(1700000000, 'yyyy-MM-dd'), to_unix_timestamp('2024-01-01', 'yyyy-MM-dd');
SELECT timestamp_seconds(1700000000), timestamp_millis(1700000000123), timestamp_micros(1), unix_seconds(TIMESTAMP '1970-01-02 00:00:00'), unix_date(DATE '1970-02-01');
SELECT make_date(2024, 2, 29), make_timestamp(2024, 1, 2, 3, 4, 5.5), last_day(DATE '2024-02-10'), next_day(DATE '2024-07-04', 'MON');
SELECT make_date(2023, 2, 29);
SELECT DATE '2024-03-01' - DATE '2024-01-01', TIMESTAMP '2024-01-02 00:00:00' - TIMESTAMP '2024-01-01 12:30:00';
SELECT DATE '2024-01-31' + INTERVAL '1' MONTH, DATE '2024-01-01' + INTERVAL '10' DAY, DATE '2024-01-01' - INTERVAL '1' YEAR;
SELECT TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '1 02:03:04.5' DAY TO SECOND, TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '90' MINUTE;
SELECT INTERVAL '1-2' YEAR TO MONTH, INTERVAL '3' YEAR, INTERVAL '-5' MONTH, INTERVAL '2 12:00:00' DAY TO SECOND, INTERVAL '36' HOUR;
SELECT INTERVAL '1' YEAR + INTERVAL '13' MONTH, INTERVAL '1' DAY * 3, INTERVAL '10' HOUR / 4, -INTERVAL '1' DAY;
SELECT INTERVAL 3 DAYS, INTERVAL 2 HOURS 30 MINUTES;
SELECT make_interval(1, 2, 0, 3, 4, 5, 6.5), make_dt_interval(1, 2, 3, 4.5), make_ym_interval(2, 3);
SELECT INTERVAL '1' DAY > INTERVAL '23' HOUR, INTERVAL '1' YEAR = INTERVAL '12' MONTH;
SELECT d, d + 1 FROM VALUES (DATE '2024-12-31'), (DATE '1970-01-01'), (DATE '0001-01-01'), (NULL) AS t(d);
SELECT year(d), count(*) FROM VALUES (DATE '2024-01-01'), (DATE '2024-06-30'), (DATE '2023-12-31') AS t(d) GROUP BY year(d);
SELECT max(ts), min(ts) FROM VALUES (TIMESTAMP '2024-01-01 00:00:00'), (TIMESTAMP '2023-05-05 05:05:05.5') AS t(ts);
SELECT CAST(TIMESTAMP '2024-03-05 10:11:12.5' AS DATE), CAST(DATE '2024-03-05' AS TIMESTAMP), CAST(TIMESTAMP '2024-03-05 10:11:12' AS TIMESTAMP_NTZ);
SELECT date_from_unix_date(19000), dayname(DATE '2024-07-04'), monthname(DATE '2024-07-04');
SELECT d FROM VALUES (DATE '2024-01-15'), (DATE '2024-02-15'), (DATE '2024-03-15') AS t(d) WHERE d BETWEEN DATE '2024-01-01' AND DATE '2024-02-28';
SELECT d FROM VALUES (DATE '2024-01-15'), (DATE '2024-02-15') AS t(d) WHERE d < '2024-02-01';
SELECT date_add(DATE '2024-01-01', 2147483647);
SELECT window(TIMESTAMP '2024-01-01 10:07:00', '5 minutes').start;
SELECT convert_timezone('UTC', 'America/New_York', TIMESTAMP_NTZ '2024-07-01 12:00:00'), from_utc_timestamp(TIMESTAMP '2024-07-01 12:00:00', 'Asia/Tokyo'), to_utc_timestamp(TIMESTAMP '2024-07-01 12:00:00', 'Europe/Paris');
SELECT make_interval(-1, 1), make_interval(0, 0, 0, 0, -1, 0, 0.000001), make_interval(0, 0, 0, 0, 0, 0, -0.5), typeof(make_interval(1));
--@ordered
SELECT id, make_interval(0, CAST(id AS INT), 0, 1, 0, 0, 0.5) FROM range(0, 5, 1, 2) ORDER BY id DESC;
