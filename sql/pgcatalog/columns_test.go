package pgcatalog

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/pgtest"
	"github.com/streamdb/streamdb/types"
)

// substitutes maps the PostgreSQL types streamdb lacks to the types its
// system relations use instead (see doc.go).
var substitutes = map[string]types.Type{
	"xid": tOid, "inet": tText, "pg_node_tree": tText, "aclitem[]": tTextArray, "anyarray": tTextArray,

	"information_schema.sql_identifier": tName, "information_schema.cardinal_number": tInt4,
	"information_schema.yes_or_no": tYesNo, "information_schema.character_data": tVarchar,
	"information_schema.time_stamp": tTimestampTZ,
}

// TestColumnsMatchPostgres checks every system relation's OID, column
// names and types against a live PostgreSQL 15 (columns_gen.go is this
// query's output).
func TestColumnsMatchPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	pg := pgtest.Start(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, tab := range Tables() {
		if tab.Streamdb {
			continue
		}
		rows, err := conn.Query(ctx, `SELECT c.oid, a.attname, format_type(a.atttypid, a.atttypmod)
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, tab.Schema, tab.Name)
		if err != nil {
			t.Fatal(err)
		}
		var i int
		for rows.Next() {
			var oid uint32
			var name, typ string
			if err := rows.Scan(&oid, &name, &typ); err != nil {
				t.Fatal(err)
			}
			if oid != tab.OID {
				t.Errorf("%s.%s: OID %d, PostgreSQL has %d", tab.Schema, tab.Name, tab.OID, oid)
			}
			if i >= len(tab.Columns) {
				t.Errorf("%s.%s: missing column %s", tab.Schema, tab.Name, name)
				continue
			}
			c := tab.Columns[i]
			want, ok := substitutes[typ]
			if !ok {
				want = types.Type{}
			}
			if c.Name != name || (ok && c.Type != want) || (!ok && !strings.EqualFold(c.Type.String(), typ)) {
				t.Errorf("%s.%s column %d: %s %s, PostgreSQL has %s %s", tab.Schema, tab.Name, i+1, c.Name, c.Type, name, typ)
			}
			i++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if i != len(tab.Columns) {
			t.Errorf("%s.%s: %d columns, PostgreSQL has %d", tab.Schema, tab.Name, len(tab.Columns), i)
		}
	}
}
