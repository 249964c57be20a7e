-- random numeric expressions (fixed seed); checks scale selection
(-949)::numeric % (-498.21)::numeric
0.00605::numeric % 549662728470919411::numeric
9::numeric / 0.0575::numeric
0.0000000226::numeric / 95178915841424964541::numeric
(-430.35)::numeric + (-811)::numeric
(-265)::numeric + 237.078::numeric
47076841423864156136::numeric / 0.000000592::numeric
(-907)::numeric / 5::numeric
2::numeric / 25176710894546932446::numeric
(-570.419283)::numeric * 8::numeric
896.835030::numeric + (-178.139)::numeric
(-564.767242)::numeric % 9::numeric
530.69653::numeric - 9::numeric
547::numeric + 763::numeric
3::numeric / 56512112576502649652::numeric
0.00000000542::numeric + 989.01845::numeric
(-109.70)::numeric / 991.28148::numeric
3::numeric - 562.88::numeric
0.000000501::numeric / (-771)::numeric
(-509.3)::numeric * 0.0088::numeric
94602125889842374480::numeric % 28588831303807909068::numeric
0.0000000988::numeric * 9::numeric
5::numeric % 8328450353085606324::numeric
2::numeric / (-956.83930)::numeric
(-532)::numeric / 854::numeric
(-854.34738)::numeric / 8::numeric
25955676060502536093::numeric / (-802)::numeric
63153879693106106079::numeric % 13449076713242326956::numeric
(-876)::numeric % 20462402946301928030::numeric
9::numeric / 26229087692810357940::numeric
89576779483963617255::numeric * (-897)::numeric
0.0993::numeric % 897::numeric
7::numeric / 16647133660781192069::numeric
73515973276605763879::numeric / 898.4687::numeric
5::numeric / 1::numeric
0.0766::numeric - (-882.9)::numeric
0.00059::numeric + 0.00872::numeric
218::numeric / 382::numeric
78328848811294412664::numeric / 0.0635::numeric
84553830614988401554::numeric / 0.000000958::numeric
6::numeric * 5::numeric
5::numeric + 1338185282988628059::numeric
0.0076::numeric + 0.0000519::numeric
6::numeric * 800::numeric
(-416.78)::numeric / 253.808412::numeric
822::numeric * 520::numeric
5::numeric - 239.53::numeric
36.4016::numeric % (-909.5)::numeric
(-669.786801)::numeric / 935::numeric
9::numeric % 709::numeric
0.000441::numeric * 1::numeric
842.5::numeric * 4::numeric
(-276)::numeric % 0.0000000998::numeric
4::numeric - 3::numeric
(-633)::numeric + 603.3421::numeric
758::numeric + 45384585155629595122::numeric
4::numeric * 351::numeric
98711224130259766360::numeric / 0.0000000696::numeric
924.1::numeric - (-634.40196)::numeric
(-106.81693)::numeric * (-909.608835)::numeric
sqrt(abs(79878092835579016069::numeric))
sqrt(abs(359.4::numeric))
sqrt(abs(0.00000683::numeric))
sqrt(abs(99656698323829901572::numeric))
sqrt(abs(136.36::numeric))
sqrt(abs(85141223409898888772::numeric))
sqrt(abs((-168.04436)::numeric))
sqrt(abs(0.000000477::numeric))
sqrt(abs(30909867834972992105::numeric))
sqrt(abs(0.00000000813::numeric))
sqrt(abs(2::numeric))
sqrt(abs(56.951343::numeric))
sqrt(abs(3::numeric))
sqrt(abs((-906)::numeric))
sqrt(abs(8::numeric))
ln(abs(0.00467::numeric) + 1)
ln(abs(85404098144734473821::numeric) + 1)
ln(abs(7::numeric) + 1)
ln(abs(22947463655914255971::numeric) + 1)
ln(abs(828::numeric) + 1)
ln(abs(594::numeric) + 1)
ln(abs(86624283716588032816::numeric) + 1)
ln(abs(28729067174786772132::numeric) + 1)
ln(abs((-66)::numeric) + 1)
ln(abs(8::numeric) + 1)
exp(0.000000973::numeric / 1000)
exp(64651746799706472750::numeric / 1000)
exp(0.00000000919::numeric / 1000)
exp(8::numeric / 1000)
exp(32314579082102665375::numeric / 1000)
exp(569.73471::numeric / 1000)
exp((-519.558)::numeric / 1000)
exp((-717)::numeric / 1000)
exp(4::numeric / 1000)
exp(95052480928692290033::numeric / 1000)
power(abs(2::numeric) + 0.5, -1)
power(abs(65349642114897130626::numeric) + 0.5, -1)
power(abs((-577)::numeric) + 0.5, 10)
power(abs(65959845798592319875::numeric) + 0.5, -1)
power(abs(930::numeric) + 0.5, 0.5)
power(abs(544.6889::numeric) + 0.5, 3)
power(abs(60375001101434426431::numeric) + 0.5, -1)
power(abs((-204)::numeric) + 0.5, 0.5)
power(abs(35409294042730328444::numeric) + 0.5, 1.5)
power(abs(0.0929::numeric) + 0.5, -1)
power(abs(0.086::numeric) + 0.5, -0.25)
power(abs(71330818277752587144::numeric) + 0.5, 3)
power(abs((-468)::numeric) + 0.5, -1)
power(abs((-566.5564)::numeric) + 0.5, 10)
power(abs(15401389030276460013::numeric) + 0.5, -1)
round(534::numeric, 5)
round(949::numeric, 2)
round(2::numeric, 7)
round(544::numeric, -3)
round(4::numeric, -3)
round(0.000245::numeric, -1)
round(75897090130328336305::numeric, 0)
round(76882140697986398727::numeric, 6)
round(592::numeric, -1)
round((-778.04966)::numeric, 8)
SET TimeZone = 'America/New_York'
timestamptz '2023-02-19 22:15' - interval '1 mon'
timestamptz '2023-10-26 01:30' - interval '1 year'
timestamptz '2023-09-21 10:00' - interval '1 year'
timestamptz '2023-07-12 20:45' - interval '23 hours'
timestamptz '2023-12-17 20:30' - interval '-36 hours'
timestamptz '2024-12-19 08:30' + interval '1 mon 1 day'
timestamptz '2024-08-08 14:45' + interval '7 days 2 hours'
timestamptz '2024-06-06 15:15' - interval '7 days 2 hours'
timestamptz '2024-05-20 22:30' + interval '1 day'
timestamptz '2023-04-24 13:45' - interval '1 mon 1 day'
timestamptz '2024-08-26 00:00' + interval '-1 day'
timestamptz '2024-12-08 09:30' - interval '-36 hours'
date_trunc('month', timestamptz '2024-12-18 10:10')
date_trunc('week', timestamptz '2024-05-10 08:10')
date_trunc('day', timestamptz '2023-12-07 10:10')
date_trunc('hour', timestamptz '2023-04-07 23:10')
SET TimeZone = 'Europe/Berlin'
timestamptz '2024-12-19 16:30' + interval '1 mon'
timestamptz '2024-04-12 05:30' + interval '1 day'
timestamptz '2024-01-02 17:30' - interval '23 hours'
timestamptz '2023-01-19 09:45' - interval '-36 hours'
timestamptz '2024-03-02 08:45' + interval '1 mon'
timestamptz '2024-08-03 18:00' + interval '23 hours'
timestamptz '2024-02-08 03:45' - interval '1 mon 1 day'
timestamptz '2024-08-10 18:45' + interval '-1 day'
timestamptz '2023-04-21 06:30' + interval '1 mon'
timestamptz '2023-03-18 02:15' - interval '1 day'
timestamptz '2024-12-20 15:30' + interval '1 day'
timestamptz '2024-12-10 22:45' + interval '1 mon'
date_trunc('week', timestamptz '2024-11-19 21:10')
date_trunc('quarter', timestamptz '2024-02-18 07:10')
date_trunc('day', timestamptz '2023-05-27 04:10')
date_trunc('year', timestamptz '2023-03-26 09:10')
SET TimeZone = 'Australia/Sydney'
timestamptz '2024-08-04 14:30' - interval '1 year'
timestamptz '2024-08-03 19:00' - interval '1 year'
timestamptz '2024-01-03 07:00' + interval '-1 day'
timestamptz '2023-08-17 20:45' + interval '-1 day'
timestamptz '2024-11-27 15:00' - interval '-36 hours'
timestamptz '2024-06-11 21:00' - interval '23 hours'
timestamptz '2024-12-16 09:45' - interval '1 day'
timestamptz '2023-06-09 10:00' + interval '1 year'
timestamptz '2024-07-02 06:30' - interval '-36 hours'
timestamptz '2023-04-09 17:15' - interval '-1 day'
timestamptz '2024-02-01 20:15' - interval '23 hours'
timestamptz '2023-09-14 02:15' - interval '1 mon'
date_trunc('hour', timestamptz '2023-11-27 04:10')
date_trunc('hour', timestamptz '2024-09-23 08:10')
date_trunc('year', timestamptz '2024-08-08 14:10')
date_trunc('year', timestamptz '2023-07-07 19:10')
SET TimeZone = 'Asia/Kathmandu'
timestamptz '2023-02-09 13:30' + interval '-1 day'
timestamptz '2024-12-10 18:45' - interval '23 hours'
timestamptz '2024-06-11 17:45' - interval '-36 hours'
timestamptz '2023-12-08 18:45' - interval '1 mon 1 day'
timestamptz '2023-06-24 15:45' + interval '1 year'
timestamptz '2024-01-05 16:30' - interval '1 mon'
timestamptz '2023-09-15 00:15' + interval '1 year'
timestamptz '2023-08-26 08:30' + interval '1 year'
timestamptz '2024-11-28 17:45' - interval '7 days 2 hours'
timestamptz '2023-10-03 07:30' + interval '1 mon 1 day'
timestamptz '2024-02-25 20:00' + interval '-36 hours'
timestamptz '2024-01-02 10:00' - interval '-1 day'
date_trunc('year', timestamptz '2024-07-05 07:10')
date_trunc('week', timestamptz '2024-10-22 05:10')
date_trunc('year', timestamptz '2023-02-20 12:10')
date_trunc('week', timestamptz '2023-08-19 04:10')
