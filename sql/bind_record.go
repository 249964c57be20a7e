package sql

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// Row values (types.Record): ROW(...) outside comparisons, references to
// the whole row of a FROM item (SELECT t FROM t, row_to_json(t.*)), and
// field selection ((t).a, (ROW(1, 2)).f2, (t).*).

// rowType is what a whole-row reference to a range variable stands for:
// the single value of a function returning one (scalar), or a record,
// named after the relation's row type (name) or anonymous.
type rowType struct {
	scalar bool
	name   string
}

// rowExpr binds ROW(a, b, ...) or (a, b, ...) as a value: a record of
// fields named f1, f2, …, untyped literals read as text.
func (b *binder) rowExpr(r *pg_query.RowExpr, c *exprCtx) (scalar.Expr, error) {
	fields := make([]scalar.Expr, len(r.Args))
	typs := make([]types.Type, len(r.Args))
	for i, a := range r.Args {
		e, err := b.expr(a, c)
		if err != nil {
			return nil, err
		}
		if e.Type().Family == types.Unknown {
			if e, err = b.coerce(e, types.TypeText, coerceImplicit, 0); err != nil {
				return nil, err
			}
		}
		fields[i], typs[i] = e, e.Type()
	}
	return &scalar.RowExpr{Fields: fields, Typ: types.RecordType("", types.AnonymousFieldNames(len(fields)), typs)}, nil
}

// wholeRow binds a reference to the range variable table as a value:
// the record of its columns (those * shows), or, for a function returning
// one value, that value. ok is false when no range variable is named so.
func (b *binder) wholeRow(table string, c *exprCtx) (scalar.Expr, bool) {
	sc, depth, ok := c.s.findTable(table)
	if !ok {
		return nil, false
	}
	cols := sc.starCols(table)
	ref := func(col scopeCol) scalar.Expr {
		if depth == 0 {
			return &scalar.ColRef{Idx: col.idx, Typ: col.typ}
		}
		return &planner.OuterRef{Depth: depth, Idx: col.idx, Typ: col.typ}
	}
	rt := sc.rowTypes[table]
	var e scalar.Expr
	if rt.scalar && len(cols) == 1 {
		e = ref(cols[0])
	} else {
		fields := make([]scalar.Expr, len(cols))
		names := make([]string, len(cols))
		typs := make([]types.Type, len(cols))
		for i, col := range cols {
			fields[i], names[i], typs[i] = ref(col), col.name, col.typ
		}
		e = &scalar.RowExpr{Fields: fields, Typ: types.RecordType(rt.name, names, typs)}
	}
	for _, col := range sc.cols {
		if col.name == rowMarker(table) {
			// The row may be made up by an outer join: NULL then.
			missing := &scalar.IsNull{Arg: ref(col)}
			return &scalar.Case{Whens: []scalar.When{{Cond: missing, Result: scalar.NullOf(e.Type())}}, Else: e, Typ: e.Type()}, true
		}
	}
	return e, true
}

// selectField binds (e).name: a field of a record whose descriptor is
// known; a ROW(...) or whole row gives its field's expression directly.
func selectField(e scalar.Expr, name string, pos int) (scalar.Expr, error) {
	t := e.Type()
	if t.Family != types.Record {
		return nil, pgerr.New(pgerr.WrongObjectType, "column notation .%s applied to type %s, which is not a composite type", name, t).WithPosition(pos)
	}
	desc := types.RecordDescOf(t)
	if desc == nil {
		return nil, pgerr.New(pgerr.UndefinedColumn, "could not identify column %q in record data type", name).WithPosition(pos)
	}
	i := desc.Field(name)
	switch {
	case i < 0 && desc.TypeName == "":
		return nil, pgerr.New(pgerr.UndefinedColumn, "could not identify column %q in record data type", name).WithPosition(pos)
	case i < 0:
		return nil, pgerr.New(pgerr.UndefinedColumn, "column %q not found in data type %s", name, desc.TypeName).WithPosition(pos)
	}
	if row, ok := e.(*scalar.RowExpr); ok {
		return row.Fields[i], nil
	}
	return &scalar.FieldSelect{Arg: e, Idx: i, Typ: desc.Types[i]}, nil
}

// expandRecord returns the fields of a record expression, as (e).*
// expands in a select list, with their names.
func expandRecord(e scalar.Expr, pos int) ([]scalar.Expr, []string, error) {
	desc := types.RecordDescOf(e.Type())
	if desc == nil {
		if e.Type().Family == types.Record {
			return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "record type has not been registered").WithPosition(pos)
		}
		return []scalar.Expr{e}, []string{"?column?"}, nil
	}
	fields := make([]scalar.Expr, len(desc.Names))
	for i, n := range desc.Names {
		f, err := selectField(e, n, pos)
		if err != nil {
			return nil, nil, err
		}
		fields[i] = f
	}
	return fields, desc.Names, nil
}

// A whole row of the nullable side of an outer join is NULL where the
// join made up the row, not a record of NULLs. Where the statement may
// reference such a row, the side gets a marker column, TRUE in every row
// of its own, which the made-up rows have NULL: the whole-row reference
// tests it (wholeRow). Which names may be such references is read from
// the statement's text beforehand (noteRowNames), since the select list
// is bound after FROM; a name that turns out to be a column costs one
// constant column.

// rowMarker is the hidden column name of the marker of range variable
// table; no SQL name can spell it.
func rowMarker(table string) string { return "\x00whole row of " + table }

// noteRowNames collects, when sel's FROM holds an outer join, the names
// its expressions use that could be whole-row references: unqualified
// column names and t.* outside the select list's top level.
func (b *binder) noteRowNames(sel *pg_query.SelectStmt) {
	outer := false
	for _, it := range sel.FromClause {
		outer = outer || hasOuterJoin(it)
	}
	if !outer {
		return
	}
	if b.rowNames == nil {
		b.rowNames = map[string]bool{}
	}
	collectRowNames(sel.ProtoReflect(), b.rowNames)
}

func hasOuterJoin(n *pg_query.Node) bool {
	j := n.GetJoinExpr()
	if j == nil {
		return false
	}
	return j.Jointype != pg_query.JoinType_JOIN_INNER || hasOuterJoin(j.Larg) || hasOuterJoin(j.Rarg)
}

func collectRowNames(m protoreflect.Message, names map[string]bool) {
	if cr, ok := m.Interface().(*pg_query.ColumnRef); ok {
		f := cr.Fields
		switch {
		case len(f) == 1 && f[0].GetString_() != nil:
			names[f[0].GetString_().Sval] = true
		case len(f) == 2 && f[0].GetString_() != nil && f[1].GetAStar() != nil:
			names[f[0].GetString_().Sval] = true
		}
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				collectRowNames(v.List().Get(i).Message(), names)
			}
		case fd.Message() != nil && !fd.IsMap():
			collectRowNames(v.Message(), names)
		}
		return true
	})
}

// markNullable adds a marker column to the nullable side fi of an outer
// join for each of its range variables the statement may reference
// whole, unless an inner join marked it already.
func (b *binder) markNullable(fi *fromItem) {
	var marked []string
	for _, t := range fi.tables {
		if !b.rowNames[t] || slices.ContainsFunc(fi.cols, func(c scopeCol) bool { return c.name == rowMarker(t) }) {
			continue
		}
		marked = append(marked, t)
	}
	if len(marked) == 0 {
		return
	}
	cols := fi.node.Columns()
	exprs := make([]scalar.Expr, 0, len(cols)+1)
	for i, c := range cols {
		exprs = append(exprs, &scalar.ColRef{Idx: i, Typ: c.Type})
	}
	exprs = append(exprs, scalar.NewConst(types.DTrue, types.TypeBool))
	pcols := append(append([]planner.Column(nil), cols...), planner.Column{Name: "?column?", Type: types.TypeBool})
	fi.node = &planner.Project{Input: fi.node, Exprs: exprs, Cols: pcols}
	for _, t := range marked {
		fi.cols = append(fi.cols, scopeCol{table: t, name: rowMarker(t), idx: len(cols), typ: types.TypeBool, qualifiedOnly: true, hidden: true})
	}
}

// storableType refuses a table column of a record type: PostgreSQL
// refuses the pseudo-type record, and streamdb keeps records (and the
// whole rows of relations, composite types in PostgreSQL) only in
// memory, since their descriptors do not outlive the process.
func storableType(column string, t types.Type) error {
	if t.Family == types.Array {
		t = t.ElemType()
	}
	if t.Family != types.Record {
		return nil
	}
	if d := types.RecordDescOf(t); d != nil && d.TypeName != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "column %q of type %s: composite columns are not supported", column, d.TypeName)
	}
	return pgerr.New(pgerr.InvalidTableDefinition, "column %q has pseudo-type record", column)
}
