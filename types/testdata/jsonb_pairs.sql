-- Run by gen_golden.sh: jsonb ordering (sign of a <=> b) and containment
-- (a @> b) for every pair of the values below.
CREATE TEMP TABLE v (n serial, j jsonb);
INSERT INTO v (j) VALUES ('null'), ('true'), ('false'), ('0'), ('1'), ('1.0'), ('-1'), ('100'), ('"a"'), ('"b"'),
  ('"ab"'), ('""'), ('[]'), ('[1]'), ('[2]'), ('[1,2]'), ('[[1]]'), ('["a"]'), ('[null]'), ('[1,[2,3]]'), ('[{"a":1}]'),
  ('{}'), ('{"a":1}'), ('{"a":2}'), ('{"b":1}'), ('{"aa":1}'), ('{"a":1,"b":2}'), ('{"a":[1,2]}'), ('{"a":{"b":1}}'),
  ('{"a":{"b":1,"c":2}}'), ('[1,2,1]'), ('{"a":[1]}'), ('[{}]'), ('[[]]'), ('{"a":null}'), ('[true,false]');
\copy (SELECT a.j, b.j, sign(CASE WHEN a.j < b.j THEN -1 WHEN a.j > b.j THEN 1 ELSE 0 END), a.j @> b.j FROM v a, v b ORDER BY a.n, b.n) TO STDOUT
