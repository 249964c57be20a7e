'abc'::char(5) || 'x'
length('abc'::char(5))
octet_length('abc'::char(5))
'abc'::varchar(2)
upper('ß')
lower('ÀÉÎ')
initcap('ÉCOLE normale')
left('héllo', 2)
right('héllo', -1)
lpad('héllo', 7, 'ü')
reverse('héllo')
substr('héllo', 2, 2)
strpos('héllo', 'l')
replace('aaa', 'aa', 'b')
split_part('a--b--c', '--', 2)
repeat('-', 0)
concat_ws('-', 1, 2.0, true, NULL, 'x')
format('%s-%s', NULL, 'a')
format('%-3s|', 'ab')
format('%3s|', 'abcd')
format('%*s|', 4, 'ab')
format('%1$s %1$s', 'x')
btrim('  ')
ltrim('xxaxx', 'x')
rtrim('xxaxx', 'x')
translate('hello', 'el', 'ip')
md5('')
md5('héllo')
'ABC' ~ '[a-c]+'
'ABC' ~* '^[a-c]+$'
'foo bar' ~ '\bbar'
regexp_replace('Hello World', '(\w+) (\w+)', '\2 \1')
regexp_replace('aaa', 'a', 'b', 'g')
regexp_replace('a.b.c', '\.', '-', 'g')
regexp_replace('abc', 'B', 'x', 'gi')
regexp_match('abc123def', '[0-9]+')
regexp_match('abc', '(a)(x)?')
substring('abcdef' from 'b(.)d')
'a' || NULL || 'b'
'abc' LIKE 'ABC'
'abc' ILIKE 'A_C'
'100%' LIKE '100\%'
'a_b' LIKE 'a\_b'
'ab' SIMILAR TO 'a|b'
'ab' SIMILAR TO '(a|b)*'
'abc' SIMILAR TO 'a.c'
'a.c' SIMILAR TO 'a.c'
quote_literal(1.5)
quote_nullable(NULL)
quote_ident('a"b')
to_hex(0)
chr(1114112)
chr(-1)
ascii('é')
encode('\x00ff'::bytea, 'escape')
encode(E'a\\b'::bytea, 'escape')
decode('a\\000b', 'escape')
decode('zz', 'hex')
encode(sha256(''), 'hex')
encode('hello world, this is a long string to wrap the base64 output past seventy six chars'::bytea, 'base64')
length('abc'::bytea)
'\x01'::bytea || '\x02'::bytea
'abc'::name = 'abc'
starts_with('abc', '')
