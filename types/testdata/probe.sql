-- Helper functions for gen_golden.sh. probe(type, input) runs the type's
-- input function with the column typmod (as INSERT and COPY do, so length
-- and precision limits raise errors instead of truncating) and returns
-- "text<TAB>binary-hex" from the output and send functions, or
-- "ERROR<TAB>sqlstate: message".
CREATE TEMP TABLE typmods (typ text PRIMARY KEY, oid regtype, mod int);

CREATE FUNCTION pg_temp.typmod_of(typ text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE m int;
BEGIN
  SELECT mod INTO m FROM typmods WHERE typmods.typ = typmod_of.typ;
  IF FOUND THEN RETURN m; END IF;
  EXECUTE format('CREATE TEMP TABLE tm_probe (c %s)', typ);
  SELECT atttypmod INTO m FROM pg_attribute WHERE attrelid = 'tm_probe'::regclass AND attname = 'c';
  DROP TABLE tm_probe;
  INSERT INTO typmods VALUES (typ, typ::regtype, m);
  RETURN m;
END $$;

CREATE FUNCTION pg_temp.probe(typ text, val text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  m int := pg_temp.typmod_of(typ);
  t pg_type%ROWTYPE;
  o text; b text; args text;
BEGIN
  SELECT * INTO t FROM pg_type WHERE oid = typ::regtype;
  IF (SELECT pronargs FROM pg_proc WHERE oid = t.typinput) = 1 THEN
    args := '';
  ELSE
    args := format(', %s, %s', CASE WHEN t.typelem <> 0 THEN t.typelem ELSE t.oid END, m);
  END IF;
  EXECUTE format('SELECT %s(v)::text, encode(%s(v), ''hex'') FROM (SELECT %s(%L::cstring%s) AS v) s',
                 t.typoutput, t.typsend, t.typinput, val, args)
    INTO o, b;
  RETURN o || E'\t' || b;
EXCEPTION WHEN others THEN
  RETURN 'ERROR' || E'\t' || sqlstate || ': ' || sqlerrm;
END $$;

-- cast_probe(from, to, input) reads input as type "from", casts it
-- explicitly to "to" and returns the output function's text, or
-- "ERROR<TAB>sqlstate: message".
CREATE FUNCTION pg_temp.cast_probe(src text, dst text, val text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE o text; outf text;
BEGIN
  SELECT typoutput::text INTO outf FROM pg_type WHERE oid = dst::regtype;
  EXECUTE format('SELECT %s(CAST(CAST(%L AS %s) AS %s))::text', outf, val, src, dst) INTO o;
  RETURN o || E'\t';
EXCEPTION WHEN others THEN
  RETURN 'ERROR' || E'\t' || sqlstate || ': ' || sqlerrm;
END $$;
