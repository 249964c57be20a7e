package sql

import (
	"slices"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// Set-returning functions in the select list.
//
// PostgreSQL runs a set-returning function in the select list once per
// input row and emits one output row per row it returns, the other items
// repeated, and none when it returns none. Without aggregation that is a
// LATERAL cross join with the function in FROM, and liftSetReturning
// rewrites the statement to exactly that before it is bound, so nothing
// downstream knows the difference. Clients depend on it in their catalog
// queries: JDBC's getPrimaryKeys and getIndexInfo select
// information_schema._pg_expandarray(i.indkey), and people write
// SELECT generate_series(1, 3).
//
// (f(x)).col reads one column of the function. A bare call of a function
// with several columns is a composite value in PostgreSQL; streamdb has no
// composite types, so it becomes one column per field, named
// "name.field", which (name).field in an enclosing query then reads
// (fieldSelection in bind_expr.go).
//
// Identical calls share one lateral item, as PostgreSQL runs them in
// lockstep; different calls are zipped in lockstep too (liftedFunctions).
// Set-returning functions under aggregation, where PostgreSQL applies
// them after grouping, are refused.

// srfAliasPrefix starts the names of lifted FROM items; the prefix cannot
// clash with an unquoted identifier.
const srfAliasPrefix = "?srf"

// liftSetReturning returns sel with its top-level set-returning calls
// moved to FROM, and the select-list items that stand for a whole call
// (expanded like t.*, with the call's name). sel itself is not changed: a
// statement's parse tree is bound again for each execution.
//
// Several different calls run in lockstep, as in PostgreSQL 10 and
// later: they become one lateral item whose i-th row holds the i-th row
// of every function, padded with NULLs for the functions that have
// fewer (ROWS FROM's rule); the columns of the i-th call belong to the
// range "?srf<i>".
func liftSetReturning(sel *pg_query.SelectStmt) (*pg_query.SelectStmt, map[*pg_query.ResTarget]bool, error) {
	var keys []proto.Message
	var calls []*pg_query.Node
	index := make([]int, len(sel.TargetList)) // call of each item, -1 for none
	for i, n := range sel.TargetList {
		index[i] = -1
		call, _ := setReturningCall(n.GetResTarget().Val)
		if call == nil {
			continue
		}
		key := withoutLocations(call)
		j := slices.IndexFunc(keys, func(k proto.Message) bool { return proto.Equal(k, key) })
		if j < 0 {
			j = len(keys)
			keys, calls = append(keys, key), append(calls, call)
		}
		index[i] = j
	}
	if len(calls) == 0 {
		return sel, nil, nil
	}
	lifted := proto.Clone(sel).(*pg_query.SelectStmt)
	functions := make([]*pg_query.Node, len(calls))
	for j, call := range calls {
		functions[j] = &pg_query.Node{Node: &pg_query.Node_List{List: &pg_query.List{Items: []*pg_query.Node{call, nil}}}}
	}
	lifted.FromClause = append(lifted.FromClause, &pg_query.Node{Node: &pg_query.Node_RangeFunction{
		RangeFunction: &pg_query.RangeFunction{Lateral: true, Functions: functions, Alias: &pg_query.Alias{Aliasname: srfAliasPrefix}},
	}})
	whole := map[*pg_query.ResTarget]bool{}
	for i, n := range sel.TargetList {
		if index[i] < 0 {
			continue
		}
		rt := n.GetResTarget()
		_, field := setReturningCall(rt.Val)
		alias := srfAliasPrefix
		if len(calls) > 1 {
			alias += strconv.Itoa(index[i])
		}
		name := rt.Name
		if name == "" {
			name = columnName(rt.Val)
		}
		ref := &pg_query.ColumnRef{Fields: []*pg_query.Node{pg_query.MakeStrNode(alias), pg_query.MakeStrNode(field)}}
		if field == "" {
			ref.Fields[1] = &pg_query.Node{Node: &pg_query.Node_AStar{AStar: &pg_query.A_Star{}}}
		}
		nrt := &pg_query.ResTarget{Name: name, Val: &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: ref}}, Location: rt.Location}
		lifted.TargetList[i] = &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: nrt}}
		if field == "" {
			whole[nrt] = true
		}
	}
	return lifted, whole, nil
}

// liftedFunctions binds the lateral item liftSetReturning made of
// several set-returning calls: one FlatMap of the functions zipped
// (scalar.RowsFrom), the columns of the i-th in the range "?srf<i>".
func (b *binder) liftedFunctions(rf *pg_query.RangeFunction, left *scope, parent *scope) (*fromItem, error) {
	inner := newScope(lateralScope(left, parent))
	c := &exprCtx{s: inner, what: "functions in FROM"}
	var fns []*scalar.TableFunc
	var args []scalar.Expr
	fi := &fromItem{}
	var cols []planner.Column
	for i, f := range rf.Functions {
		fc := f.GetList().Items[0].GetFuncCall()
		name, err := b.callableName(fc.Funcname)
		if err != nil {
			return nil, withPosition(err, loc(fc.Location))
		}
		fargs := make([]scalar.Expr, len(fc.Args))
		argTypes := make([]types.Type, len(fc.Args))
		for j, an := range fc.Args {
			if fargs[j], err = b.expr(an, c); err != nil {
				return nil, err
			}
			argTypes[j] = fargs[j].Type()
		}
		tf, targets, err := scalar.ResolveTableFunc(name, argTypes)
		if err != nil {
			return nil, withPosition(err, loc(fc.Location))
		}
		if b.inView && tf.Volatility != scalar.Immutable {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "calls to %s are not allowed in materialized views", name).WithPosition(loc(fc.Location))
		}
		for j := range fargs {
			if fargs[j], err = b.coerce(fargs[j], targets[j], coerceImplicit, loc(fc.Location)); err != nil {
				return nil, err
			}
		}
		table := srfAliasPrefix + strconv.Itoa(i)
		fcols := tf.Columns(targets)
		for _, col := range fcols {
			n := col.Name
			if len(fcols) == 1 {
				n = name
			}
			fi.cols = append(fi.cols, scopeCol{table: table, name: n, idx: len(cols), typ: col.Type})
			cols = append(cols, planner.Column{Name: n, Type: col.Type})
		}
		fi.tables = append(fi.tables, table)
		fns, args = append(fns, tf), append(args, fargs...)
	}
	fi.node = &planner.FlatMap{Input: oneRow(), Func: scalar.RowsFrom(fns), Args: args, Cols: cols}
	return lateralItem(fi), nil
}

// setReturningCall recognises a select-list item that is a call of a
// set-returning function, or (call).field; field is "" for the call
// itself.
func setReturningCall(n *pg_query.Node) (call *pg_query.Node, field string) {
	if ind := n.GetAIndirection(); ind != nil && len(ind.Indirection) == 1 && ind.Indirection[0].GetString_() != nil {
		if c, f := setReturningCall(ind.Arg); c != nil && f == "" {
			return c, ind.Indirection[0].GetString_().Sval
		}
		return nil, ""
	}
	fc := n.GetFuncCall()
	if fc == nil || fc.Over != nil || fc.AggStar || len(fc.AggOrder) > 0 || fc.AggFilter != nil {
		return nil, ""
	}
	name, err := funcName(fc.Funcname)
	if err != nil || !scalar.IsTableFunc(name) {
		return nil, ""
	}
	return n, ""
}

// withoutLocations is a copy of a node without source locations, so that
// the same call written at two places compares equal.
func withoutLocations(n *pg_query.Node) proto.Message {
	c := proto.Clone(n)
	clearLocations(c.ProtoReflect())
	return c
}

func clearLocations(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Name() == "location":
			m.Clear(fd)
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				clearLocations(v.List().Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			clearLocations(v.Message())
		}
		return true
	})
}
