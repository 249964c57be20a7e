-- integer arithmetic
1 + 2
2147483647 + 1
-2147483648 - 1
2147483647::bigint + 1
9223372036854775807 + 1
32767::smallint + 1::smallint
32767::smallint + 1
5 / 2
-5 / 2
5 % 3
-5 % 3
5 / 0
5 % 0
(-2147483648) / -1
(-2147483648) % -1
(-9223372036854775808)::bigint / -1
100000 * 100000
100000::bigint * 100000
3037000500::bigint * 3037000500
- 5
-(-2147483648)
@ -5
abs(-7)
abs(-2147483648)
7 & 3
7 | 8
7 # 2
~ 5
1 << 10
1 << 31
1 << 32
-16 >> 2
1::smallint << 15
1::bigint << 63
2 + 3 * 4
(2 + 3) * 4
2 ^ 10
2 ^ 0.5
(-8) ^ (1.0/3)
0 ^ (-1)
mod(17, 5)
mod(-17, 5)
1 + NULL
NULL::int / 0
1 + '2'
'1' + '2'
1 + 1.5
1 / 3.0
1.0 / 3
10 / 4.0
1::numeric / 3
2::numeric / 3
100::numeric / 7
1 / 7::numeric
12345678901234567890 / 3
0.001 / 7
1e-10 / 3
1.5 + 2.25
1.50 * 2.0
5.5 % 2
-5.5 % 2
5.5 / 0
5.5 % 0
1.0 / 0.0
2::numeric ^ 10
2.5 ^ 2
2 ^ 0.5::numeric
1.1::numeric ^ 100
10::numeric ^ -2
'NaN'::numeric + 1
- 1.5
@ -1.5
abs(-1.50)
1.5::float8 + 2
1e308::float8 * 10
1e-308::float8 * 1e-300
1::float8 / 0
0::float8 / 0
'NaN'::float8 + 1
'Infinity'::float8 + 1
'Infinity'::float8 - 'Infinity'::float8
1.5::real + 1.25::real
1.1::real * 3
3.4e38::real * 10
0.1::float8 + 0.2::float8
1::float8 / 3
2::float8 ^ 0.5
(-2)::float8 ^ 0.5
0::float8 ^ (-1)
2::float8 ^ 1024
1::int2 + 1::int8
1::int2 * 40000
200::int2 * 200::int2
10::int8 / 3::int2
- 1.5::float8
@ (-2.5)::real
1 + 1::float8
1::bigint + 1.5
1 = 1
1 < 2
1.5 > 2
'a' < 'b'
'abc' = 'abc'::varchar
'a '::char(3) = 'a'::char(3)
1 <> 1
1 != 2
1 = NULL
2 >= 2.0
'NaN'::float8 = 'NaN'::float8
'NaN'::float8 > 1e308::float8
true > false
1::int2 = 1::int8
1 + true
'a' + 1
1 || 2
