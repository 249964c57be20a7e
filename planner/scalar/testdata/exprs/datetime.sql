date '2024-01-31' + 1
date '2024-12-31' + 1
1 + date '2024-02-28'
date '2024-03-01' - 1
date '2024-03-01' - date '2024-01-01'
date '2024-01-31' + interval '1 month'
date '2024-01-31' - interval '1 day'
date '2024-01-01' + time '12:30'
timestamp '2024-01-31 10:00' + interval '1 month'
timestamp '2023-01-31 10:00' + interval '1 month'
timestamp '2024-02-29 00:00' + interval '1 year'
timestamp '2024-01-01 00:00' + interval '1 day 25 hours'
timestamp '2024-01-01 00:00' - interval '1 mon 1 day 1 sec'
timestamp '2024-03-01' - timestamp '2024-01-01 12:00'
timestamp '2024-01-01' - timestamp '2024-03-01 12:00'
timestamp '2024-01-01 10:00:00.5' - timestamp '2024-01-01 09:00'
interval '1 day' + interval '2 hours'
interval '1 mon' - interval '1 day'
- interval '1 mon 2 days 03:00'
interval '1 hour' * 2.5
interval '1 mon' * 1.5
interval '1 mon' / 2
interval '1 day' / 3
interval '1 day' / 0
2 * interval '1 day 1 hour'
time '10:00' + interval '3 hours'
time '23:00' + interval '3 hours'
time '10:00' - time '08:30'
time '01:00' - interval '2 hours'
justify_hours(interval '27 hours')
justify_days(interval '35 days')
justify_interval(interval '1 mon -1 hour')
justify_interval(interval '-1 mon 40 days')
make_interval(1, 2, 3, 4, 5, 6, 7.5)
make_interval(0, 0, 0, 0, 0, 0, 0)
make_date(2024, 2, 29)
make_date(2023, 2, 29)
make_date(-44, 3, 15)
make_time(12, 30, 45.5)
make_time(25, 0, 0)
make_timestamp(2024, 1, 2, 3, 4, 5.678)
make_timestamptz(2024, 1, 2, 3, 4, 5, 'America/New_York')
to_timestamp(0)
to_timestamp(1700000000.5)
extract(year from timestamp '2024-05-06 07:08:09.123456')
extract(month from timestamp '2024-05-06 07:08:09.123456')
extract(day from timestamp '2024-05-06 07:08:09.123456')
extract(hour from timestamp '2024-05-06 07:08:09.123456')
extract(minute from timestamp '2024-05-06 07:08:09.123456')
extract(second from timestamp '2024-05-06 07:08:09.123456')
extract(milliseconds from timestamp '2024-05-06 07:08:09.123456')
extract(microseconds from timestamp '2024-05-06 07:08:09.123456')
extract(epoch from timestamp '2024-05-06 07:08:09.123456')
extract(dow from timestamp '2024-05-05')
extract(isodow from timestamp '2024-05-05')
extract(doy from timestamp '2024-12-31')
extract(week from timestamp '2024-12-30')
extract(isoyear from timestamp '2024-12-30')
extract(quarter from timestamp '2024-08-01')
extract(decade from timestamp '2024-08-01')
extract(century from timestamp '2000-12-31')
extract(century from timestamp '2001-01-01')
extract(millennium from timestamp '2001-01-01')
extract(julian from timestamp '2024-01-01')
extract(julian from timestamp '2024-01-01 12:00')
extract(year from date '2024-05-06')
extract(epoch from date '2024-05-06')
extract(hour from date '2024-05-06')
extract(julian from date '2024-05-06')
extract(foo from timestamp '2024-05-06')
extract(hour from time '13:14:15.5')
extract(second from time '13:14:15.5')
extract(epoch from time '13:14:15.5')
extract(epoch from interval '1 day 2 hours')
extract(epoch from interval '1 year 1 mon')
extract(hour from interval '50 hours')
extract(day from interval '50 days')
extract(month from interval '14 mons')
extract(year from interval '14 mons')
extract(second from interval '1 min 2.5 sec')
extract(dow from interval '1 day')
extract(timezone from timestamptz '2024-01-01 00:00+00')
date_part('year', timestamp '2024-05-06')
date_part('second', timestamp '2024-05-06 07:08:09.5')
date_part('epoch', timestamp '2024-05-06 07:08:09.5')
date_part('hour', date '2024-05-06')
date_part('day', interval '3 days')
date_trunc('year', timestamp '2024-05-06 07:08:09')
date_trunc('quarter', timestamp '2024-05-06 07:08:09')
date_trunc('month', timestamp '2024-05-06 07:08:09')
date_trunc('week', timestamp '2024-05-08 07:08:09')
date_trunc('day', timestamp '2024-05-06 07:08:09')
date_trunc('hour', timestamp '2024-05-06 07:08:09')
date_trunc('minute', timestamp '2024-05-06 07:08:09')
date_trunc('second', timestamp '2024-05-06 07:08:09.75')
date_trunc('milliseconds', timestamp '2024-05-06 07:08:09.123456')
date_trunc('decade', timestamp '2024-05-06')
date_trunc('century', timestamp '2024-05-06')
date_trunc('millennium', timestamp '2024-05-06')
date_trunc('foo', timestamp '2024-05-06')
date_trunc('hour', interval '1 day 5 hours 30 min')
date_trunc('year', interval '1 year 5 mons')
date_trunc('day', timestamptz '2024-05-06 07:08:09+00')
date_trunc('day', timestamptz '2024-05-06 07:08:09+00', 'Asia/Tokyo')
date_bin(interval '15 minutes', timestamp '2024-05-06 07:08:09', timestamp '2000-01-01')
date_bin(interval '15 minutes', timestamp '2024-05-06 07:08:09', timestamp '2024-05-06 07:10')
date_bin(interval '1 month', timestamp '2024-05-06 07:08:09', timestamp '2000-01-01')
date_bin(interval '0 minutes', timestamp '2024-05-06 07:08:09', timestamp '2000-01-01')
age(timestamp '2024-05-06', timestamp '2023-01-31')
age(timestamp '2023-01-31', timestamp '2024-05-06')
age(timestamp '2024-03-01', timestamp '2024-01-31 12:00')
timestamp '2024-05-06 12:00' AT TIME ZONE 'UTC'
timestamp '2024-05-06 12:00' AT TIME ZONE 'America/New_York'
timestamptz '2024-05-06 12:00+00' AT TIME ZONE 'Asia/Kolkata'
timestamptz '2024-05-06 12:00+00' AT TIME ZONE '+05'
timestamptz '2024-05-06 12:00+00' AT TIME ZONE 'Mars/Phobos'
timezone('Europe/Berlin', timestamp '2024-03-31 02:30')
timezone('Europe/Berlin', timestamp '2024-10-27 02:30')
isfinite(date '2024-01-01')
isfinite(timestamp 'infinity')
timestamp 'infinity' + interval '1 day'
date '2024-01-01' < date '2024-01-02'
timestamp '2024-01-01' = date '2024-01-01'
interval '1 day' = interval '24 hours'
interval '1 mon' > interval '29 days'
date '5874897-12-31' + 1
timestamp '2024-01-01 00:00' + interval '1 day' * 0.5
SET TimeZone = 'America/New_York'
timestamptz '2024-03-09 12:00' + interval '1 day'
timestamptz '2024-03-09 12:00' + interval '24 hours'
timestamptz '2024-03-10 01:30' + interval '1 hour'
timestamptz '2024-11-02 12:00' + interval '1 day'
timestamptz '2024-11-03 12:00' - timestamptz '2024-11-02 12:00'
timestamptz '2024-01-31 12:00' + interval '1 month'
date_trunc('day', timestamptz '2024-03-10 12:00')
date_trunc('day', timestamptz '2024-11-03 23:00')
extract(hour from timestamptz '2024-03-10 12:00')
extract(timezone_hour from timestamptz '2024-03-10 12:00')
extract(epoch from timestamptz '2024-03-10 12:00')
timestamp '2024-03-10 02:30' AT TIME ZONE 'America/New_York'
timestamp '2024-11-03 01:30' AT TIME ZONE 'America/New_York'
make_timestamptz(2024, 3, 10, 2, 30, 0)
timestamptz '2024-03-10 12:00' AT TIME ZONE 'UTC'
age(timestamptz '2024-03-11', timestamptz '2024-03-09')
date '2024-03-10' + interval '1 day'
date_bin(interval '1 day', timestamptz '2024-03-10 12:00', timestamptz '2024-01-01')
SET TimeZone = 'Asia/Kolkata'
timestamptz '2024-01-01 00:00' + interval '1 mon'
extract(timezone_minute from timestamptz '2024-01-01 00:00')
date_trunc('month', timestamptz '2024-01-15 03:00')
SET TimeZone = 'UTC'
to_char(timestamp '2024-03-05 14:07:09.123456', 'YYYY-MM-DD HH24:MI:SS.MS')
to_char(timestamp '2024-03-05 14:07:09.123456', 'YYYY-MM-DD HH12:MI:SS AM US')
to_char(timestamp '2024-03-05 00:07:09', 'HH12 am HH24 pm')
to_char(timestamp '2024-03-05 14:07:09', 'Month Mon MON month')
to_char(timestamp '2024-03-05 14:07:09', 'FMMonth FMDD FMHH12')
to_char(timestamp '2024-03-05 14:07:09', 'Day Dy DY day D ID')
to_char(timestamp '2024-03-05 14:07:09', 'FMDay, FMDDth "of" FMMonth YYYY')
to_char(timestamp '2024-03-01 14:07:09', 'DDth DDD WW IW Q CC J')
to_char(timestamp '2024-03-22 14:07:09', 'FMDDth FMDDTH')
to_char(timestamp '2024-03-05 14:07:09', 'YY YYY Y IYYY')
to_char(timestamp '2024-03-05 14:07:09', 'A.M. p.m. SSSS')
to_char(timestamptz '2024-03-05 14:07:09+00', 'YYYY-MM-DD HH24:MI TZ OF')
to_char(date '2024-03-05', 'DD/MM/YYYY')
to_char(timestamp '2024-03-05 14:07:09', 'HH24\"h\"MI')
SET TimeZone = 'Asia/Kolkata'
to_char(timestamptz '2024-03-05 14:07:09+00', 'YYYY-MM-DD HH24:MI TZ OF tz')
