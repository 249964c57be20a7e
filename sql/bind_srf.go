package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
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
// lockstep. Different calls would need ROWS FROM's zipping and are
// refused, and so are set-returning functions under aggregation, where
// PostgreSQL applies them after grouping.

// srfAliasPrefix starts the names of lifted FROM items; the prefix cannot
// clash with an unquoted identifier.
const srfAliasPrefix = "?srf"

// liftSetReturning returns sel with its top-level set-returning calls
// moved to FROM, and the select-list items that stand for a whole call
// (expanded like t.*, with the call's name). sel itself is not changed: a
// statement's parse tree is bound again for each execution.
func liftSetReturning(sel *pg_query.SelectStmt) (*pg_query.SelectStmt, map[*pg_query.ResTarget]bool, error) {
	var lifted *pg_query.SelectStmt
	var whole map[*pg_query.ResTarget]bool
	var first proto.Message
	for i, n := range sel.TargetList {
		rt := n.GetResTarget()
		call, field := setReturningCall(rt.Val)
		if call == nil {
			continue
		}
		key := withoutLocations(call)
		if first != nil && !proto.Equal(first, key) {
			return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "more than one set-returning function in the select list is not supported").
				WithPosition(loc(call.GetFuncCall().Location))
		}
		alias := srfAliasPrefix
		if lifted == nil {
			lifted = proto.Clone(sel).(*pg_query.SelectStmt)
			lifted.FromClause = append(lifted.FromClause, &pg_query.Node{Node: &pg_query.Node_RangeFunction{
				RangeFunction: &pg_query.RangeFunction{
					Lateral:   true,
					Functions: []*pg_query.Node{{Node: &pg_query.Node_List{List: &pg_query.List{Items: []*pg_query.Node{call, nil}}}}},
					Alias:     &pg_query.Alias{Aliasname: alias},
				},
			}})
			whole = map[*pg_query.ResTarget]bool{}
			first = key
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
	if lifted == nil {
		return sel, nil, nil
	}
	return lifted, whole, nil
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
