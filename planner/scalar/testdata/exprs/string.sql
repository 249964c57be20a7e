length('héllo')
char_length('abc')
octet_length('héllo')
length('ab  '::char(5))
lower('ABC Déf')
upper('abc déf')
initcap('hello wORLD foo-bar')
substr('abcdef', 2, 3)
substr('abcdef', 0, 2)
substr('abcdef', -1, 4)
substr('abcdef', 3)
substr('abcdef', 2, -1)
substring('abcdef' from 2 for 3)
substring('abcdef' from 3)
substring('abcdef' for 2)
substring('foobar' from 'o+b')
substring('foobar' from 'o(b)a')
position('c' in 'abcdc')
strpos('abcdc', 'dc')
strpos('abc', 'x')
replace('abcabc', 'b', 'XY')
replace('abc', '', 'x')
trim('  abc  ')
trim(both 'x' from 'xxabcxx')
trim(leading 'x' from 'xxabcxx')
trim(trailing from '  abc  ')
btrim('xyabcyx', 'xy')
ltrim('  abc')
rtrim('abc  ')
concat('a', 1, NULL, 2.5, true)
concat_ws(', ', 'a', NULL, 'b', 3)
concat_ws(NULL, 'a', 'b')
concat()
split_part('a,b,c', ',', 2)
split_part('a,b,c', ',', -1)
split_part('a,b,c', ',', 5)
split_part('a,b,c', ',', 0)
left('abcde', 2)
left('abcde', -2)
right('abcde', 2)
right('abcde', -2)
repeat('ab', 3)
repeat('ab', -1)
reverse('abc')
lpad('hi', 5)
lpad('hi', 5, 'xy')
lpad('hello', 3)
rpad('hi', 5, 'xy')
rpad('hi', 1)
md5('abc')
ascii('A')
ascii('')
chr(65)
chr(0)
chr(233)
starts_with('alphabet', 'alph')
'alphabet' ^@ 'bet'
format('Hello %s, %s', 'World', 42)
format('%I', 'Foo bar')
format('%L', 'O''Reilly')
format('%L', NULL)
format('%s|%-5s|%5s|', 'a', 'b', 'c')
format('%2$s %1$s', 'a', 'b')
format('%s %s', 'a')
format('%x', 1)
format('100%%')
quote_ident('foo')
quote_ident('Foo')
quote_ident('select')
quote_ident('time')
quote_ident('between')
quote_ident('json')
quote_literal('it''s')
quote_literal(E'a\\b')
to_hex(255)
to_hex(-1)
to_hex(9223372036854775807)
translate('12345', '143', 'ax')
'abc' || 'def'
'abc' || 1
1 || 'abc'
'abc' || NULL
'x' || true
'a'::varchar || 'b'::char(3)
'ab '::char(3) || 'c'
encode('abc'::bytea, 'hex')
encode('abc'::bytea, 'base64')
decode('616263', 'hex')
decode('YWJj', 'base64')
decode('6', 'hex')
encode('abc'::bytea, 'foo')
'abc' LIKE 'a%'
'abc' LIKE 'a_c'
'abc' LIKE 'b%'
'abc' NOT LIKE 'b%'
'ABC' ILIKE 'a%'
'ABC' NOT ILIKE 'a%'
'a%c' LIKE 'a\%c'
'abc' LIKE 'a\%c'
'a_c' LIKE 'a#_c' ESCAPE '#'
'abc' LIKE 'abc\'
'abc' LIKE '%'
'' LIKE '%'
'' LIKE ''
'abc' LIKE '%b%'
'abcbc' LIKE '%bc'
'aXbYc' LIKE 'a%b%c'
'ab' LIKE 'a%b%c'
'héllo' LIKE 'h_llo'
NULL LIKE 'a'
'abc' LIKE 'a%' ESCAPE ''
'abc' LIKE 'a%' ESCAPE 'xy'
'abc' ~ 'b'
'abc' ~ '^b'
'ABC' ~* 'b'
'abc' !~ 'b'
'ABC' !~* 'b'
'abc' ~ '('
regexp_replace('foobarbaz', 'b..', 'X')
regexp_replace('foobarbaz', 'b..', 'X', 'g')
regexp_replace('foobarbaz', 'b(.)(.)', '\2\1', 'g')
regexp_replace('ABC', 'b', 'x', 'i')
regexp_match('foobarbequebaz', 'bar(beque)')
regexp_match('foobar', 'x')
regexp_match('abc', 'b')
regexp_match('abc', 'b', 'g')
regexp_like('abc', 'B', 'i')
regexp_count('abcabc', 'b')
'abc' SIMILAR TO 'abc'
'abc' SIMILAR TO 'a'
'abc' SIMILAR TO '%(b|d)%'
'abc' SIMILAR TO 'a_c'
length(NULL)
upper(NULL)
sha256('abc'::bytea)
'abc' < 'abd'
'Z' < 'a'
overlay('Txxxxas' placing 'hom' from 2 for 4)
overlay('Txxxxas' placing 'hom' from 2)
overlay('abc' placing 'X' from 0)
pg_size_pretty(10239)
pg_size_pretty(10240)
pg_size_pretty(123456789)
pg_size_pretty(-20000)
pg_size_pretty(1000000000000000000)
pg_size_pretty(20971519)
pg_size_pretty(-9223372036854775808)
