package postgres

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
)

const allTypesSchema = `
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN posint AS int4 CHECK (VALUE > 0);
CREATE DOMAIN price AS numeric(12,2);
CREATE TABLE all_types (
	id int8 PRIMARY KEY,
	b bool, i2 int2, i4 int4 NOT NULL, f4 float4, f8 float8,
	n numeric, n2 numeric(10,3), t text, vc varchar(20), c char(5), nm name, by bytea,
	d date, tm time, tm2 time(2), ts timestamp, ts3 timestamp(3), tz timestamptz, iv interval,
	u uuid, j json, jb jsonb, o oid,
	m mood, p posint, pr price,
	ai int4[], at text[], am mood[], ap posint[], an numeric(5,1)[], atz timestamptz[], ab bool[], ajb jsonb[],
	au uuid[], aby bytea[], aiv interval[], ad date[], avc varchar(5)[], af8 float8[], ac char(2)[],
	pt point
);
CREATE PUBLICATION pub FOR ALL TABLES;
`

// allTypesRows inserts rows of every kind of value, NULLs and edge cases
// included; base offsets the ids.
func allTypesRows(base int) string {
	r := strings.NewReplacer("$1", strconv.Itoa(base+1), "$2", strconv.Itoa(base+2), "$3", strconv.Itoa(base+3), "$4", strconv.Itoa(base+4))
	return r.Replace(`
INSERT INTO all_types VALUES
($1, true, -32768, 2147483647, 1.5, 0.1, 123456789012345678901234567890.000123, 1234567.125, 'héllo wörld ✓', 'varchar', 'ab', 'a name', '\xdeadbeef',
 '2024-02-29', '23:59:59.999999', '12:34:56.78', '2024-01-01 12:00:00.123456', '1999-12-31 23:59:59.999', '2024-06-01 12:00:00+02', '1 year 2 mons 3 days 04:05:06.789',
 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": 1,  "a": [1, 2]}', '{"b": 1, "a": {"c": [true, null, "x"]}}', 4000000000,
 'happy', 7, 1234.50,
 '{1,NULL,3}', '{"a b","c,d","e\"f",NULL,""}', '{sad,happy}', '{1,2}', '{1.5,NULL}', '{"2024-01-01 00:00:00+00"}', '{t,f}', ARRAY['{"k": 1}'::jsonb, '[]'],
 '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', ARRAY['\x00'::bytea, '\xff'], '{"1 day","-00:00:01"}', '{2024-02-29,infinity}', '{abc,"d e"}', '{NaN,-Infinity,1.25}', '{a,bb}',
 '(1.5,-2)'),
($2, false, 0, -2147483648, 'NaN', '-Infinity', 'NaN', -0.001, '', '', '', '', '\x',
 'infinity', '00:00:00', '24:00:00', '-infinity', 'infinity', '1970-01-01 00:00:00+00', '-3 days -00:00:01',
 '00000000-0000-0000-0000-000000000000', '[]', '{}', 0,
 'sad', 1, -0.01,
 '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}',
 '{}', '{}', '{}', '{}', '{}', '{}', '{}',
 NULL),
($3, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
 NULL, NULL, NULL, NULL, NULL, NULL, NULL,
 NULL, NULL, NULL, NULL,
 NULL, NULL, NULL,
 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
 NULL, NULL, NULL, NULL, NULL, NULL, NULL,
 NULL),
($4, true, 42, 42, 3.4028235e38, 1e-300, 'Infinity', 0, 'line
break	tab \ backslash', 'x', 'abcde', 'n', '\x00ff',
 '0001-01-01 BC', '01:02:03', '01:02:03.45', '0001-01-01 00:00:00 BC', '2038-01-19 03:14:07.999', '2000-01-01 00:00:00+00', '-178000000 years',
 'ffffffff-ffff-ffff-ffff-ffffffffffff', '"a string"', '[1, "two", 3.0, {"x": null}]', 1,
 'ok', 2147483647, 9999999999.99,
 '{-1}', '{"\\"}', '{ok}', '{5}', '{-9999.9}', '{infinity}', '{NULL}', '{null}',
 '{NULL}', '{NULL,"\\x"}', '{"-178000000 years"}', '{0001-01-01 BC}', '{NULL,""}', '{0}', '{" "}',
 '(0,0)');`)
}

// TestAllTypes replicates a table with a column of every type streamdb
// has (arrays, an enum, domains and a TEXT COLUMN of a type it lacks
// among them) through the snapshot and then through the stream, and
// compares with upstream's own text output after each step.
func TestAllTypes(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(allTypesSchema, allTypesRows(0))
	cfg := u.config("all_types", "pub")
	cfg.TextColumns = []ColumnRef{{Table: "all_types", Column: "pt"}}
	src := open(t, cfg)

	out := src.Outputs()[0]
	want := map[string]string{
		"id": "bigint", "b": "boolean", "i2": "smallint", "f4": "real", "n2": "numeric(10,3)", "vc": "character varying(20)",
		"c": "character(5)", "nm": "name", "by": "bytea", "tm2": "time(2) without time zone", "ts3": "timestamp(3) without time zone",
		"tz": "timestamp with time zone", "iv": "interval", "u": "uuid", "j": "json", "jb": "jsonb", "o": "oid",
		"m": "text", "p": "integer", "pr": "numeric(12,2)", "ai": "integer[]", "am": "text[]", "ap": "integer[]",
		"an": "numeric(5,1)[]", "ajb": "jsonb[]", "au": "uuid[]", "aby": "bytea[]", "avc": "character varying(5)[]", "ac": "character(2)[]", "pt": "text",
	}
	for _, c := range out.Columns {
		if w, ok := want[c.Name]; ok && c.Type.String() != w {
			t.Errorf("column %s: type %s, want %s", c.Name, c.Type, w)
		}
	}
	if len(out.Key) != 1 || out.Key[0] != 0 || !out.Columns[0].NotNull || !out.Columns[3].NotNull || out.Columns[1].NotNull {
		t.Errorf("key %v, not nulls %v %v %v", out.Key, out.Columns[0].NotNull, out.Columns[3].NotNull, out.Columns[1].NotNull)
	}

	m := newModel(src.Outputs())
	start(t, src, m, nil)
	q := map[string]string{"all_types": "SELECT * FROM all_types"}
	waitEqual(t, m, u, q)
	m.waitState(t, sources.Running)
	m.mu.Lock()
	states := fmt.Sprint(slices.Compact(slices.Clone(m.states)))
	m.mu.Unlock()
	if states != "[starting snapshotting running]" {
		t.Errorf("states %s", states)
	}

	u.exec(allTypesRows(10),
		`UPDATE all_types SET t = t || '!', jb = jb || '{"z": 1}', am = am || 'ok'::mood, tz = tz + interval '1 hour' WHERE id IN (1, 12, 14)`,
		`DELETE FROM all_types WHERE id IN (2, 13)`)
	waitEqual(t, m, u, q)
}

// TestUnsupportedType checks that a column of a type streamdb lacks is
// refused with a hint to list it in TEXT COLUMNS, and accepted there.
func TestUnsupportedType(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE shapes (id int PRIMARY KEY, c circle, m money)`, `CREATE PUBLICATION pub FOR ALL TABLES`)
	cfg := u.config("unsupported", "pub")
	_, err := Discover(context.Background(), cfg)
	e := pgerr.As(err)
	if e == nil || e.Code != pgerr.FeatureNotSupported || !strings.Contains(e.Message, "circle") || !strings.Contains(e.Hint, "TEXT COLUMNS") {
		t.Fatalf("Discover: %#v", err)
	}
	cfg.TextColumns = []ColumnRef{{Schema: "public", Table: "shapes", Column: "c"}, {Table: "shapes", Column: "m"}}
	tables, err := Discover(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := tables[0].Output.Columns[1].Type.String(); got != "text" {
		t.Errorf("TEXT COLUMN c has type %s", got)
	}
	cfg.TextColumns = append(cfg.TextColumns, ColumnRef{Table: "shapes", Column: "nope"})
	if _, err := Discover(context.Background(), cfg); pgerr.CodeOf(err) != pgerr.UndefinedColumn {
		t.Errorf("unknown TEXT COLUMN: %v", err)
	}
}
