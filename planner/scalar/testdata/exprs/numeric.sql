10::numeric / 3
-7::numeric / 2
1e20::numeric / 7
7 / 1e20::numeric
0.5 / 0.25
123.456 * 0.001
1234567.891 / 0.003
99999999999999999999 * 99999999999999999999
0.1 + 0.2
1.10 - 0.1
-5.5 % -2
5.5 % -2
round(-0.5)
round(0.5)
round(-2.5::float8)
round(123.456, -1)
round(0.000123456, 5)
trunc(-123.456, -2)
ceil(-0.5)
floor(0.5)
sqrt(1e-20::numeric)
sqrt(123456789012345678901234567890::numeric)
sqrt(2.0000)
exp(10::numeric)
exp(-10::numeric)
ln(1e100::numeric)
ln(0.5)
log(0.001)
log(2, 1024)
(-2)::numeric ^ 3
(-2)::numeric ^ 0.5
0::numeric ^ 0
0::numeric ^ (-1)
1.5 ^ -2
10::numeric ^ 20
2::numeric ^ 0.333
'Infinity'::numeric + 1
'NaN'::numeric * 0
'-Infinity'::numeric < 0
1::numeric / 'Infinity'::numeric
div(-7.5, 2)
mod(-7, 3)
mod(7, -3)
-7 % 3
7 % -3
32767::smallint * 2::smallint
(-32768)::smallint / (-1)::smallint
100::smallint / 7::smallint
-(-32768)::smallint
abs((-32768)::smallint)
1.5::real * 1.5::real
1::real / 3::real
1e30::real * 1e30::real
0.1::real + 0.2::real
10::float8 % 3
sqrt(2::real)
3::int2 + 2.5
9223372036854775807::bigint * 2
-9223372036854775808::bigint - 1
(-9223372036854775808)::bigint * -1
abs((-9223372036854775808)::bigint)
2147483647 * 2147483647::bigint
gcd(12::bigint, 18)
lcm(-4, 6)
1::numeric(10,2) + 1
(1.567::numeric(10,2))
1.005::numeric(10,2)
12345.6789::numeric(6,2)
avg_fake_function(1)
width_bucket(5.0, 0, 10, 4)
scale(0.00)
scale(100)
trim_scale(1.500)
trim_scale(100.00)
min_scale(1.500)
min_scale(0.0010)
