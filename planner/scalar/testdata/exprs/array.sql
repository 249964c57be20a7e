array_length(ARRAY[1, 2, 3], 1)
array_length(ARRAY[1, 2, 3], 2)
array_length('{}'::int[], 1)
cardinality(ARRAY[1, 2, 3])
cardinality('{}'::int[])
array_position(ARRAY['a', 'b', 'c'], 'b')
array_position(ARRAY[1, 2, 1], 1, 2)
array_position(ARRAY[1, NULL], NULL)
array_positions(ARRAY[1, 2, 1], 1)
array_append(ARRAY[1, 2], 3)
array_append(NULL::int[], 3)
array_prepend(0, ARRAY[1, 2])
array_cat(ARRAY[1, 2], ARRAY[3, 4])
array_cat(ARRAY[1], NULL)
array_remove(ARRAY[1, 2, 1, 3], 1)
array_replace(ARRAY[1, 2, 1], 1, 9)
ARRAY[1, 2] || ARRAY[3]
ARRAY[1, 2] || 3
0 || ARRAY[1, 2]
ARRAY[1, 2] || 2.5
ARRAY[1, 2, 3] @> ARRAY[2, 3]
ARRAY[1, 2, 3] @> ARRAY[4]
ARRAY[1, 2] <@ ARRAY[1, 2, 3]
ARRAY[1, 2] && ARRAY[2, 5]
ARRAY[1, 2] && ARRAY[5]
ARRAY[1, NULL] @> ARRAY[NULL::int]
array_to_string(ARRAY[1, 2, NULL, 3], ',')
array_to_string(ARRAY[1, 2, NULL, 3], ',', '*')
array_to_string(ARRAY['a', 'b'], '')
string_to_array('a,b,c', ',')
string_to_array('a,b,,c', ',', '')
string_to_array('abc', NULL)
string_to_array('abc', '')
string_to_array('', ',')
ARRAY[1, 2] = ARRAY[1, 2]
ARRAY[1, 2] < ARRAY[1, 3]
ARRAY[1, 2] < ARRAY[1, 2, 0]
array_upper(ARRAY[1, 2], 1)
array_lower(ARRAY[1, 2], 1)
array_ndims(ARRAY[1, 2])
num_nulls(1, NULL, NULL)
num_nonnulls(1, NULL, 'a')
