package pgcatalog

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// fakeSource is a catalog with a table (primary key, default, check), an
// index, a view and a materialized view.
type fakeSource struct{ rels []*Relation }

func newFake() *fakeSource {
	orders := &Relation{OID: 20000, Schema: "public", Name: "orders", Kind: KindTable, PrimaryKey: []int{0},
		Columns: []Attribute{
			{Name: "id", Type: types.TypeInt4, NotNull: true},
			{Name: "customer", Type: types.TypeText, NotNull: true},
			{Name: "amount", Type: types.Type{Family: types.Numeric, Mod: types.NumericMod(10, 2)}, Default: "0"},
			{Name: "tags", Type: types.ArrayOf(types.TypeText)},
		},
		Checks: []Check{{Name: "orders_amount_check", Expr: "amount >= 0"}}}
	return &fakeSource{rels: []*Relation{
		orders,
		{OID: 20001, Schema: "public", Name: "orders_customer", Kind: KindIndex, On: 20000, KeyCols: []int{1}},
		{OID: 20002, Schema: "public", Name: "v", Kind: KindView, Columns: orders.Columns[:2], ViewDef: "SELECT id, customer FROM orders"},
		{OID: 20003, Schema: "public", Name: "Spend", Kind: KindMaterializedView,
			Columns: []Attribute{{Name: "customer", Type: types.TypeText}, {Name: "total", Type: types.TypeNumeric}},
			ViewDef: "SELECT customer, sum(amount) AS total FROM orders GROUP BY customer"},
	}}
}

func (f *fakeSource) Relations() []*Relation { return f.rels }
func (f *fakeSource) Relation(oid uint32) (*Relation, bool) {
	for _, r := range f.rels {
		if r.OID == oid {
			return r, true
		}
	}
	return nil, false
}
func (f *fakeSource) RelationByName(schema, name string) (*Relation, bool) {
	for _, r := range f.rels {
		if r.Schema == schema && r.Name == name {
			return r, true
		}
	}
	return nil, false
}
func (f *fakeSource) Settings() []Setting {
	return []Setting{{Name: "TimeZone", Value: "UTC", Default: "UTC", Description: "Sets the time zone."}}
}
func (f *fakeSource) ViewErrors() []ViewError { return nil }

func (f *fakeSource) Activity() []Activity {
	return []Activity{{PID: 7, Database: "streamdb", User: "ada", State: "active", Query: "SELECT 1"}}
}
func (f *fakeSource) Database() string { return "streamdb" }
func (f *fakeSource) User() string     { return "ada" }
func (f *fakeSource) Roles() []*Role {
	return []*Role{
		{OID: 10, Name: "ada", Super: true, Inherit: true, Login: true, ConnLimit: -1, Password: "SCRAM-SHA-256$4096:c2FsdA==$a:b"},
		{OID: 20010, Name: "readers", Inherit: true, ConnLimit: -1},
		{OID: 20011, Name: "bob", Inherit: true, Login: true, ConnLimit: 2, MemberOf: []Membership{{Role: 20010, Grantor: 10}}},
	}
}
func (f *fakeSource) DatabaseOwner() uint32 { return 10 }
func (f *fakeSource) DatabaseACL() []string { return nil }

// TestEveryTableGenerates builds every system relation and checks each
// row's width and column types.
func TestEveryTableGenerates(t *testing.T) {
	src := newFake()
	for _, tab := range Tables() {
		for _, row := range tab.Rows(src) {
			if len(row) != len(tab.Columns) {
				t.Fatalf("%s: row of %d values, %d columns", tab.Name, len(row), len(tab.Columns))
			}
			for i, d := range row {
				want := tab.Columns[i].Type.Family
				if d.IsNull() {
					continue
				}
				if want.IsReg() {
					want = types.Oid
				}
				if d.Kind() != want {
					t.Errorf("%s.%s: value of kind %s", tab.Name, tab.Columns[i].Name, d.Kind())
				}
			}
		}
	}
}

// find returns the rows of a table whose column col has the given text.
func find(t *testing.T, table, col, val string) []map[string]string {
	t.Helper()
	tab, ok := Lookup(strings.Split(table, ".")[0], strings.Split(table, ".")[1])
	if !ok {
		t.Fatalf("no table %s", table)
	}
	var out []map[string]string
	src := newFake()
	cfg := types.DefaultTextConfig()
	cfg.Names = Names(src)
	for _, row := range tab.Rows(src) {
		m := map[string]string{}
		for i, c := range tab.Columns {
			if row[i].IsNull() {
				m[c.Name] = "NULL"
				continue
			}
			m[c.Name] = types.FormatText(row[i], c.Type, cfg)
		}
		if m[col] == val {
			out = append(out, m)
		}
	}
	return out
}

func TestRelations(t *testing.T) {
	tests := []struct {
		table, col, val string
		want            map[string]string
	}{
		{"pg_catalog.pg_class", "relname", "orders", map[string]string{"oid": "20000", "relkind": "r", "relnamespace": "2200", "relhasindex": "t", "relnatts": "4", "relchecks": "1"}},
		{"pg_catalog.pg_class", "relname", "orders_pkey", map[string]string{"relkind": "i", "relam": "403"}},
		{"pg_catalog.pg_class", "relname", "Spend", map[string]string{"relkind": "m"}},
		{"pg_catalog.pg_class", "relname", "pg_class", map[string]string{"oid": "1259", "relnamespace": "11"}},
		{"pg_catalog.pg_attribute", "attname", "amount", map[string]string{"atttypid": "1700", "atttypmod": "655366", "atthasdef": "t", "attnum": "3"}},
		{"pg_catalog.pg_attribute", "attname", "tags", map[string]string{"atttypid": "1009", "attndims": "1", "attcollation": "100"}},
		{"pg_catalog.pg_index", "indexrelid", "20001", map[string]string{"indrelid": "20000", "indkey": "2", "indisprimary": "f"}},
		{"pg_catalog.pg_constraint", "contype", "p", map[string]string{"conname": "orders_pkey", "conkey": "{1}"}},
		{"pg_catalog.pg_attrdef", "adnum", "3", map[string]string{"adbin": "0"}},
		{"pg_catalog.pg_type", "typname", "int4", map[string]string{"oid": "23", "typlen": "4", "typarray": "1007", "typinput": "int4in", "typcategory": "N"}},
		{"pg_catalog.pg_type", "typname", "_text", map[string]string{"typelem": "25", "typcategory": "A"}},
		{"pg_catalog.pg_proc", "proname", "lower", map[string]string{"prorettype": "25", "pronargs": "1"}},
		{"pg_catalog.pg_tables", "tablename", "orders", map[string]string{"schemaname": "public", "hasindexes": "t"}},
		{"pg_catalog.pg_indexes", "indexname", "orders_pkey", map[string]string{"indexdef": "CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (id)"}},
		{"pg_catalog.pg_matviews", "matviewname", "Spend", map[string]string{"definition": " SELECT customer, sum(amount) AS total FROM orders GROUP BY customer;"}},
		{"information_schema.columns", "column_name", "amount", map[string]string{"data_type": "numeric", "numeric_precision": "10", "numeric_scale": "2", "is_nullable": "YES", "udt_name": "numeric", "column_default": "0"}},
		{"information_schema.columns", "column_name", "tags", map[string]string{"data_type": "ARRAY", "udt_name": "_text"}},
		{"information_schema.tables", "table_name", "Spend", map[string]string{"table_type": "VIEW"}},
		{"information_schema.key_column_usage", "column_name", "id", map[string]string{"constraint_name": "orders_pkey", "ordinal_position": "1"}},
		{"pg_catalog.pg_settings", "name", "TimeZone", map[string]string{"setting": "UTC", "source": "default"}},
		{"pg_catalog.pg_stat_activity", "pid", "7", map[string]string{"state": "active", "usename": "ada"}},
	}
	for _, tt := range tests {
		rows := find(t, tt.table, tt.col, tt.val)
		if len(rows) != 1 {
			t.Errorf("%s where %s = %s: %d rows", tt.table, tt.col, tt.val, len(rows))
			continue
		}
		for k, v := range tt.want {
			if rows[0][k] != v {
				t.Errorf("%s where %s = %s: %s = %q, want %q", tt.table, tt.col, tt.val, k, rows[0][k], v)
			}
		}
	}
}

func TestNames(t *testing.T) {
	src := newFake()
	for _, tt := range []struct {
		f    types.Family
		in   string
		oid  uint32
		out  string
		code pgerr.Code
	}{
		{f: types.RegClass, in: "orders", oid: 20000, out: "orders"},
		{f: types.RegClass, in: "public.ORDERS", oid: 20000, out: "orders"},
		{f: types.RegClass, in: `"Spend"`, oid: 20003, out: `"Spend"`},
		{f: types.RegClass, in: "orders_pkey", oid: pkeyIndexOID(20000), out: "orders_pkey"},
		{f: types.RegClass, in: "pg_class", oid: 1259, out: "pg_class"},
		{f: types.RegClass, in: "information_schema.tables", oid: 13425, out: "information_schema.tables"},
		{f: types.RegClass, in: "nope", code: pgerr.UndefinedTable},
		{f: types.RegType, in: "integer", oid: 23, out: "integer"},
		{f: types.RegType, in: "int4[]", oid: 1007, out: "integer[]"},
		{f: types.RegType, in: "pg_catalog.varchar", oid: 1043, out: "character varying"},
		{f: types.RegType, in: "nope", code: pgerr.UndefinedObject},
		{f: types.RegProc, in: "lower", oid: 870, out: "lower"},
		{f: types.RegNamespace, in: "public", oid: 2200, out: "public"},
		{f: types.RegNamespace, in: "nope", code: pgerr.InvalidSchemaName},
	} {
		oid, err := ObjectOID(src, tt.f, tt.in)
		if tt.code != "" {
			if pgerr.CodeOf(err) != tt.code {
				t.Errorf("%s %q: %v, want %s", tt.f, tt.in, err, tt.code)
			}
			continue
		}
		if err != nil || oid != tt.oid {
			t.Errorf("%s %q: %d %v, want %d", tt.f, tt.in, oid, err, tt.oid)
			continue
		}
		if out, ok := ObjectName(src, tt.f, oid); !ok || out != tt.out {
			t.Errorf("%s %d: %q, want %q", tt.f, oid, out, tt.out)
		}
	}
}

func TestDescribe(t *testing.T) {
	src := newFake()
	if s, _ := ConstraintDef(src, pkeyConstraintOID(20000)); s != "PRIMARY KEY (id)" {
		t.Errorf("constraintdef: %q", s)
	}
	if s, _ := ConstraintDef(src, checkOID(20000, 0)); s != "CHECK (amount >= 0)" {
		t.Errorf("check: %q", s)
	}
	if s, _ := IndexDef(src, 20001, 0); s != "CREATE INDEX orders_customer ON public.orders USING btree (customer)" {
		t.Errorf("indexdef: %q", s)
	}
	if s, _ := IndexDef(src, 20001, 1); s != "customer" {
		t.Errorf("indexdef column: %q", s)
	}
	if s, ok := ViewDef(src, 20002); !ok || s != " SELECT id, customer FROM orders;" {
		t.Errorf("viewdef: %q", s)
	}
	if v, ok := Visible(src, pgClassOID, 13425); !ok || v {
		t.Errorf("information_schema.tables visible: %v %v", v, ok)
	}
	if v, ok := Visible(src, pgClassOID, 20003); !ok || !v {
		t.Errorf("Spend visible: %v %v", v, ok)
	}
	if _, ok := Visible(src, pgClassOID, 99999); ok {
		t.Error("missing relation reported as existing")
	}
}
