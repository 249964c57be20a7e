'{"a": 1, "b": [1, 2, {"c": "x"}]}'::jsonb -> 'b'
'{"a": 1, "b": [1, 2, {"c": "x"}]}'::jsonb -> 'b' -> 2 -> 'c'
'{"a": 1, "b": [1, 2, {"c": "x"}]}'::jsonb -> 'b' ->> 2
'{"a": 1, "b": [1, 2, {"c": "x"}]}'::jsonb ->> 'a'
'{"a": "s"}'::jsonb ->> 'a'
'{"a": null}'::jsonb ->> 'a'
'{"a": null}'::jsonb -> 'a'
'[1, 2, 3]'::jsonb -> -1
'[1, 2, 3]'::jsonb -> 5
'[1, 2, 3]'::jsonb -> 'a'
'{"a": 1}'::jsonb -> 0
'{"a": {"b": [10, 20]}}'::jsonb #> '{a,b,1}'
'{"a": {"b": [10, 20]}}'::jsonb #>> '{a,b}'
'{"a": {"b": [10, 20]}}'::jsonb #> '{a,x}'
'{"a": 1, "b": 2}'::jsonb @> '{"a": 1}'
'{"a": 1, "b": 2}'::jsonb @> '{"a": 2}'
'[1, 2, [3, 4]]'::jsonb @> '[[3]]'
'[1, 2, 3]'::jsonb @> '2'
'{"a": [1, 2]}'::jsonb @> '{"a": [2]}'
'{"a": 1}'::jsonb <@ '{"a": 1, "b": 2}'
'{"a": 1, "b": 2}'::jsonb ? 'a'
'["a", "b"]'::jsonb ? 'b'
'{"a": 1, "b": 2}'::jsonb ?| ARRAY['x', 'b']
'{"a": 1, "b": 2}'::jsonb ?& ARRAY['a', 'x']
'{"a": 1}'::jsonb || '{"b": 2, "a": 3}'
'[1, 2]'::jsonb || '[3]'
'[1]'::jsonb || '2'
'{"a": 1, "b": 2}'::jsonb - 'a'
'["a", "b", "a"]'::jsonb - 'a'
'[1, 2, 3]'::jsonb - 1
'[1, 2, 3]'::jsonb - -1
'{"a": 1, "b": 2, "c": 3}'::jsonb - ARRAY['a', 'c']
'1'::jsonb - 'a'
jsonb_typeof('{"a": 1}')
jsonb_typeof('[1]')
jsonb_typeof('"x"')
jsonb_typeof('1.5')
jsonb_typeof('true')
jsonb_typeof('null')
jsonb_array_length('[1, 2, 3]')
jsonb_array_length('{}')
jsonb_array_length('5')
jsonb_build_object('a', 1, 'b', 'x', 'c', NULL, 'd', true, 'e', 1.50)
jsonb_build_object('b', 1, 'a', 2, 'b', 3)
jsonb_build_object('a')
jsonb_build_object()
jsonb_build_array(1, 'a', NULL, false, 2.5)
jsonb_build_array()
json_build_object('a', 1, 'b', 'x')
json_build_array(1, 'x')
to_jsonb(1)
to_jsonb('a'::text)
to_jsonb(ARRAY[1, 2])
to_jsonb(true)
to_jsonb(timestamp '2024-01-02 03:04:05')
to_jsonb(date '2024-01-02')
to_jsonb(1.50)
to_jsonb('NaN'::float8)
to_json('x'::text)
jsonb_extract_path('{"a": {"b": 1}}', 'a', 'b')
jsonb_extract_path_text('{"a": {"b": "x"}}', 'a', 'b')
jsonb_strip_nulls('{"a": 1, "b": null, "c": {"d": null}}')
jsonb_pretty('{"a": 1, "b": [1, 2], "c": {}}')
'{"a": 1}'::json -> 'a'
'{"a": "x"}'::json ->> 'a'
'[1, 2]'::json ->> 1
'{"b": 1, "a": 2}'::jsonb = '{"a": 2, "b": 1}'::jsonb
'{"a": 1}'::jsonb < '{"a": 2}'::jsonb
'{"a": 1.0}'::jsonb = '{"a": 1}'::jsonb
jsonb_set('{"a": [1, 2]}', '{a,5}', '9')
jsonb_set('{"a": 1}', '{b,c}', '9')
jsonb_set('{"a": 1}', '{b}', '9', false)
jsonb_set('{"a": 1}', '{b}', '9')
jsonb_set('[1, 2]', '{-1}', '9')
jsonb_set('[1, 2]', '{-5}', '9')
jsonb_set('1', '{a}', '2')
jsonb_set('{"a": {"b": 1}}', '{a,b,c}', '2')
jsonb_set('{"a": [1]}', '{a,x}', '2')
jsonb_set('{"a": {"b": 1}}', '{a,b}', '[true]')
