package pgcatalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/streamdb/streamdb/types"
)

// Column is a column of a system relation.
type Column struct {
	Name string
	Type types.Type
}

// Table is a system relation: its PostgreSQL identity and columns, and the
// function that generates its rows.
type Table struct {
	OID    uint32
	Schema string
	Name   string
	// View marks the relations PostgreSQL defines as views (pg_tables,
	// pg_settings, information_schema…): relkind 'v' in pg_class.
	View bool
	// Streamdb marks streamdb's own relations, which PostgreSQL lacks.
	Streamdb bool
	Columns  []Column
	// SuperuserOnly marks the relations only superusers may read
	// (pg_authid and pg_shadow, which hold password verifiers).
	SuperuserOnly bool
	index         map[string]int
	gen           func(b *rowSet, src Source)
}

// Rows generates the relation's contents from src.
func (t *Table) Rows(src Source) []types.Row {
	b := &rowSet{t: t}
	if t.gen != nil {
		t.gen(b, src)
	}
	return b.rows
}

var (
	tables     []*Table
	tableNames = map[string]*Table{}
	tableOIDs  = map[uint32]*Table{}
)

// define registers a system relation whose columns are PostgreSQL's; gen
// nil means the relation is always empty in streamdb (pg_policy,
// pg_inherits…).
func define(schema, name string, view bool, gen func(b *rowSet, src Source)) {
	qn := schema + "." + name
	cols, ok := pgColumns[qn]
	if !ok {
		panic("pgcatalog: no columns for " + qn)
	}
	t := &Table{OID: relOIDs[qn], Schema: schema, Name: name, View: view, Columns: cols, index: map[string]int{}, gen: gen}
	for i, c := range cols {
		t.index[c.Name] = i
	}
	tables = append(tables, t)
	tableNames[qn] = t
	tableOIDs[t.OID] = t
}

// Lookup returns the system relation schema.name.
func Lookup(schema, name string) (*Table, bool) {
	t, ok := tableNames[schema+"."+name]
	return t, ok
}

// ByOID returns the system relation with the given OID.
func ByOID(oid uint32) (*Table, bool) {
	t, ok := tableOIDs[oid]
	return t, ok
}

// Tables returns every system relation, sorted by schema and name.
func Tables() []*Table {
	out := slices.Clone(tables)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Schema != out[j].Schema {
			return out[i].Schema < out[j].Schema
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// IsSystemSchema reports whether a schema holds only system relations.
func IsSystemSchema(schema string) bool {
	return schema == "pg_catalog" || schema == "information_schema" || schema == "mz_catalog"
}

// rowSet collects a relation's rows.
type rowSet struct {
	t    *Table
	rows []types.Row
}

// add appends a row given as alternating column names and Go values;
// values are converted to the column's type (see datum).
func (b *rowSet) add(kv ...any) {
	row := make(types.Row, len(b.t.Columns))
	for i, c := range b.t.Columns {
		row[i] = zero(c.Type)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		name := kv[i].(string)
		j, ok := b.t.index[name]
		if !ok {
			panic(fmt.Sprintf("pgcatalog: %s has no column %s", b.t.Name, name))
		}
		row[j] = datum(kv[i+1], b.t.Columns[j].Type)
	}
	b.rows = append(b.rows, row)
}

// zero is the value of a column a row leaves unset: 0 and false, so that
// filters such as "NOT attisdropped" and "reloftype = 0" hold, and NULL
// for everything else.
func zero(t types.Type) types.Datum {
	switch t.Family {
	case types.Bool:
		return types.DFalse
	case types.Int2, types.Int4, types.Int8:
		return types.NewInt(t.Family, 0)
	case types.Oid, types.RegClass, types.RegType, types.RegProc, types.RegNamespace:
		return types.NewOid(0)
	case types.Float4:
		return types.NewFloat4(0)
	}
	return types.Null
}

// datum converts a Go value to a Datum of type t.
func datum(v any, t types.Type) types.Datum {
	switch x := v.(type) {
	case nil:
		return types.Null
	case types.Datum:
		return x
	case bool:
		return types.NewBool(x)
	case string:
		switch t.Family {
		case types.QChar:
			return types.NewString(types.QChar, x[:min(len(x), 1)])
		case types.Text, types.Varchar, types.Name:
			return types.NewString(t.Family, x)
		}
		return types.NewText(x)
	case Kind:
		return types.NewString(types.QChar, string([]byte{byte(x)}))
	case byte:
		return types.NewString(types.QChar, string([]byte{x}))
	case int:
		return intDatum(int64(x), t)
	case int32:
		return intDatum(int64(x), t)
	case int64:
		return intDatum(x, t)
	case uint32:
		return intDatum(int64(x), t)
	case time.Time:
		if x.IsZero() {
			return types.Null
		}
		return types.NewTimestampTZ(x.UnixMicro())
	case []string:
		el := t.ElemType()
		elems := make([]types.Datum, len(x))
		for i, s := range x {
			elems[i] = types.NewString(el.Family, s)
		}
		return types.NewArray(&types.ArrayValue{Elem: el, Elems: elems})
	case []int:
		el := t.ElemType()
		elems := make([]types.Datum, len(x))
		for i, n := range x {
			elems[i] = intDatum(int64(n), el)
		}
		return types.NewArray(&types.ArrayValue{Elem: el, Elems: elems})
	case []uint32:
		el := t.ElemType()
		elems := make([]types.Datum, len(x))
		for i, n := range x {
			elems[i] = intDatum(int64(n), el)
		}
		return types.NewArray(&types.ArrayValue{Elem: el, Elems: elems})
	}
	panic(fmt.Sprintf("pgcatalog: cannot convert %T to %s", v, t))
}

func intDatum(v int64, t types.Type) types.Datum {
	switch t.Family {
	case types.Int2, types.Int4, types.Int8:
		return types.NewInt(t.Family, v)
	case types.Float4:
		return types.NewFloat4(float32(v))
	case types.Text, types.Varchar, types.Name:
		return types.NewString(t.Family, fmt.Sprint(v))
	}
	return types.NewOid(uint32(v))
}

// quoteIdent quotes an identifier as PostgreSQL's quote_ident does.
func quoteIdent(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain && !reserved[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// reserved lists the keywords that must be quoted as identifiers (the
// reserved ones that plausibly name columns).
var reserved = map[string]bool{
	"all": true, "analyse": true, "analyze": true, "and": true, "any": true, "array": true, "as": true, "asc": true,
	"both": true, "case": true, "cast": true, "check": true, "collate": true, "column": true, "constraint": true,
	"create": true, "current_date": true, "current_role": true, "current_time": true, "current_timestamp": true,
	"current_user": true, "default": true, "desc": true, "distinct": true, "do": true, "else": true, "end": true,
	"except": true, "false": true, "fetch": true, "for": true, "foreign": true, "from": true, "grant": true,
	"group": true, "having": true, "in": true, "initially": true, "intersect": true, "into": true, "leading": true,
	"limit": true, "localtime": true, "localtimestamp": true, "not": true, "null": true, "offset": true, "on": true,
	"only": true, "or": true, "order": true, "placing": true, "primary": true, "references": true, "returning": true,
	"select": true, "session_user": true, "some": true, "symmetric": true, "table": true, "then": true, "to": true,
	"trailing": true, "true": true, "union": true, "unique": true, "user": true, "using": true, "variadic": true,
	"when": true, "where": true, "window": true, "with": true,
}
