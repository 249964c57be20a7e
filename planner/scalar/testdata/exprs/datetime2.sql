date '2024-02-29' + interval '1 year'
date '2024-03-31' - interval '1 month'
timestamp '2024-01-31 23:59:59.999999' + interval '1 microsecond'
timestamp '2024-01-01' + interval '-1 mon -1 day'
timestamp '2024-05-31' + interval '1 mon 1 day'
timestamp '2000-01-01' - interval '2000 years'
timestamp '2024-01-01 12:00' - date '2024-01-01'
date '2024-01-01' - timestamp '2023-12-31 06:00'
interval '1 year 2 mons 3 days 04:05:06.789'
interval '-1 day +02:00'
interval '1 mon' * 0.3
interval '1 day' * 1.5
interval '3 days' / 2
interval '1 mon' / 3
interval '36 hours' - interval '1 day'
interval '1 day' < interval '25 hours'
interval '30 days' = interval '1 mon'
interval '1 year' + interval '-12 mons'
justify_hours(interval '-27 hours')
justify_days(interval '-35 days')
justify_interval(interval '1 mon -31 days')
extract(epoch from interval '-1 day')
extract(second from interval '-1.5 seconds')
extract(minute from interval '-61 minutes')
extract(quarter from interval '7 mons')
extract(millennium from timestamp '0001-01-01')
extract(year from timestamp '0044-03-15 BC')
extract(century from timestamp '0044-03-15 BC')
extract(decade from timestamp '0044-03-15 BC')
extract(isoyear from date '2021-01-01')
extract(week from date '2021-01-01')
extract(dow from date '2024-02-29')
extract(doy from date '2024-02-29')
extract(epoch from timestamp '1969-12-31 23:59:59.5')
extract(microseconds from time '00:00:01.000001')
extract(epoch from date 'infinity')
extract(day from date 'infinity')
date_part('epoch', timestamptz '2024-01-01 00:00:00+00')
date_part('dow', timestamp '2024-02-29')
date_part('millisecond', time '10:00:01.5')
date_trunc('week', timestamp '2024-01-01 10:00')
date_trunc('week', timestamp '2023-12-31 10:00')
date_trunc('quarter', timestamp '2024-12-31')
date_trunc('decade', timestamp '0005-01-01')
date_trunc('century', timestamp '2001-06-01')
date_trunc('millennium', timestamp '2001-06-01')
date_trunc('microseconds', timestamp '2024-01-01 00:00:00.123456')
date_trunc('MONTH', timestamp '2024-05-06')
date_trunc('minute', interval '1 hour 30.5 seconds')
date_bin(interval '1 hour', timestamp '2024-01-01 10:35', timestamp '2024-01-01 00:15')
date_bin(interval '90 minutes', timestamp '2024-01-01 10:35', timestamp '2024-01-01')
date_bin(interval '1 day', timestamp '1999-12-31 23:00', timestamp '2000-01-01')
age(timestamp '2024-03-31', timestamp '2024-02-29')
age(timestamp '2024-02-29', timestamp '2023-02-28')
age(timestamp '2024-01-01 00:00', timestamp '2023-12-31 23:59:59.5')
make_date(2024, 13, 1)
make_date(0, 1, 1)
make_time(24, 0, 0)
make_time(23, 59, 59.999999)
make_timestamp(2024, 2, 30, 0, 0, 0)
make_interval(0, 0, 0, 0, 0, 0, 1.5)
make_interval(1)
to_timestamp(-1)
to_timestamp(1e18)
to_timestamp('NaN'::float8)
time '12:00' + interval '1 day 3 hours'
time '10:00' < time '11:00'
isfinite(interval '1 day')
isfinite(date '-infinity')
timestamp 'infinity' > timestamp '2024-01-01'
date 'infinity' - date '2024-01-01'
timestamp '2024-01-01' AT TIME ZONE 'EST'
timestamp '2024-01-01' AT TIME ZONE 'UTC+5'
timestamptz '2024-07-01 12:00+00' AT TIME ZONE 'Europe/London'
timestamptz '2024-01-01 12:00+00' AT TIME ZONE 'Australia/Adelaide'
SET TimeZone = 'Europe/Berlin'
timestamptz '2024-03-31 01:30' + interval '1 hour'
timestamptz '2024-03-30 02:30' + interval '1 day'
timestamptz '2024-10-27 02:30' + interval '0 days'
timestamptz '2024-10-26 02:30' + interval '1 day'
timestamptz '2024-10-27 01:00' + interval '3 hours'
date_trunc('hour', timestamptz '2024-10-27 02:30+01')
date_trunc('day', timestamptz '2024-10-27 12:00')
date_trunc('month', timestamptz '2024-03-31 12:00')
extract(timezone from timestamptz '2024-07-01 00:00')
extract(hour from timestamptz '2024-07-01 00:00+00')
timestamptz '2024-06-01 00:00' - timestamptz '2024-03-01 00:00'
age(timestamptz '2024-06-01', timestamptz '2024-03-01')
timestamptz '2024-03-31 12:00' - interval '1 day'
date '2024-03-31'::timestamptz
generate_fake(1)
to_char(timestamptz '2024-03-31 12:00', 'HH24:MI TZ OF')
SET TimeZone = 'America/St_Johns'
timestamptz '2024-01-01 00:00' + interval '1 mon'
extract(timezone_minute from timestamptz '2024-01-01 00:00')
to_char(timestamptz '2024-01-01 12:00', 'OF')
SET TimeZone = 'UTC'
to_timestamp('2024-03-05 14:07:09', 'YYYY-MM-DD HH24:MI:SS')
to_date('05 Mar 2024', 'DD Mon YYYY')
to_date('05 march 2024', 'DD Month YYYY')
to_timestamp('10:30', 'HH24:MI')
to_date('2024-13-01', 'YYYY-MM-DD')
to_date('abcd-01-01', 'YYYY-MM-DD')
to_date('20240305', 'YYYYMMDD')
to_timestamp('5/3/2024 2:07 PM', 'DD/MM/YYYY HH12:MI AM')
to_timestamp('5/3/2024 12:07 am', 'DD/MM/YYYY HH12:MI AM')
to_date('2024 Mar', 'YYYY Mon')
to_date('2024-xx-01', 'YYYY-MM-DD')
to_date('2024-02-30', 'YYYY-MM-DD')
to_timestamp('2024-03-05 14:07:09.123', 'YYYY-MM-DD HH24:MI:SS.MS')
to_timestamp('2024-03-05 14:07:09.123456', 'YYYY-MM-DD HH24:MI:SS.US')
to_date('24-03-05', 'YY-MM-DD')
to_date('2024 060', 'YYYY DDD')
to_date('2024/3/5', 'YYYY/MM/DD')
SET TimeZone = 'America/New_York'
to_timestamp('2024-07-01 12:00', 'YYYY-MM-DD HH24:MI')
