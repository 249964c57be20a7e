-- Run by gen_golden.sh: PostgreSQL's btree order for values of several
-- types, as "type<TAB>value<TAB>dense rank" (equal values share a rank).
CREATE TEMP TABLE v (t text, s text);
INSERT INTO v VALUES
  ('numeric','0'),('numeric','-0.0'),('numeric','1'),('numeric','1.00'),('numeric','-1'),('numeric','NaN'),('numeric','Infinity'),
  ('numeric','-Infinity'),('numeric','0.0001'),('numeric','1e20'),('numeric','-1e-20'),('numeric','99.99'),('numeric','100'),
  ('double precision','0'),('double precision','-0'),('double precision','NaN'),('double precision','Infinity'),('double precision','-Infinity'),
  ('double precision','1e-300'),('double precision','-1.5'),('double precision','1e300'),('double precision','2'),
  ('real','0'),('real','-0'),('real','NaN'),('real','Infinity'),('real','1.5'),('real','-3'),
  ('interval','1 mon'),('interval','30 days'),('interval','29 days 24:00:00'),('interval','1 year'),('interval','-1 day'),
  ('interval','00:00:01'),('interval','0'),('interval','1 day -00:00:01'),('interval','-1 mon 30 days'),('interval','360 days'),
  ('text','a'),('text','b'),('text','ab'),('text',''),('text','B'),('text','a b'),('text','é'),('text','z'),
  ('bytea','\x00'),('bytea','\x'),('bytea','\x0001'),('bytea','\xff'),('bytea','\x7f'),
  ('character(3)','a'),('character(3)','a  '),('character(3)','ab'),('character(3)',''),('character(3)',' a'),
  ('timestamp with time zone','2024-01-15 12:00+00'),('timestamp with time zone','2024-01-15 07:00-05'),('timestamp with time zone','infinity'),
  ('timestamp with time zone','-infinity'),('timestamp with time zone','1999-12-31 23:59:59.999999+00'),
  ('date','2024-01-15'),('date','infinity'),('date','-infinity'),('date','0001-01-01 BC'),
  ('integer[]','{1,2}'),('integer[]','{1}'),('integer[]','{}'),('integer[]','{1,NULL}'),('integer[]','{2}'),('integer[]','{1,2,3}'),('integer[]','{NULL}'),
  ('text[]','{a}'),('text[]','{a,b}'),('text[]','{b}'),('text[]','{""}'),
  ('boolean','t'),('boolean','f'),
  ('uuid','00000000-0000-0000-0000-000000000001'),('uuid','ffffffff-0000-0000-0000-000000000000'),('uuid','10000000-0000-0000-0000-000000000000'),
  ('time without time zone','00:00'),('time without time zone','24:00'),('time without time zone','12:00:00.5'),
  ('jsonb','{"a":1}'),('jsonb','[1,2]'),('jsonb','"x"'),('jsonb','1.0'),('jsonb','1'),('jsonb','null'),('jsonb','[]'),('jsonb','true');
CREATE FUNCTION pg_temp.rank_of(typ text) RETURNS TABLE (t text, s text, r bigint) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT %L, s, dense_rank() OVER (ORDER BY s::%s) FROM v WHERE v.t = %L ORDER BY 3, 2', typ, typ, typ);
END $$;
\copy (SELECT r.* FROM (SELECT DISTINCT t FROM v) ts, pg_temp.rank_of(ts.t) r ORDER BY 1, 3, 2) TO STDOUT
