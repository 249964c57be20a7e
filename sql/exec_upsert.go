package sql

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// upsert is a bound INSERT … ON CONFLICT clause. Its arbiter is the
// table's primary key: a proposed row whose key is taken is skipped (DO
// NOTHING) or turns into an update of the row holding the key (DO
// UPDATE). The SET and WHERE expressions read the existing row followed
// by the proposed one, which SQL calls excluded.
type upsert struct {
	nothing bool
	set     []upsertSet
	where   scalar.Predicate
}

type upsertSet struct {
	col int
	ev  scalar.Evaluator
}

// onConflict binds an ON CONFLICT clause of an INSERT into obj.
func (b *binder) onConflict(oc *pg_query.OnConflictClause, obj *catalog.Object, alias string) (*upsert, error) {
	if len(obj.PrimaryKey) == 0 {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
	}
	u := &upsert{nothing: oc.Action == pg_query.OnConflictAction_ONCONFLICT_NOTHING}
	if err := b.conflictTarget(oc.Infer, obj, u.nothing); err != nil {
		return nil, err
	}
	if u.nothing {
		return u, nil
	}
	width := len(obj.Columns)
	s := tableScope(obj, alias)
	ex := tableScope(obj, "excluded")
	s.cols = append(s.cols, shifted(ex.cols, width)...)
	s.tables["excluded"] = true
	for _, tn := range oc.TargetList {
		rt := tn.GetResTarget()
		if len(rt.Indirection) > 0 || rt.Val.GetMultiAssignRef() != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ON CONFLICT DO UPDATE SET of array elements, fields or rows is not supported").WithPosition(loc(rt.Location))
		}
		idx, ce, err := b.assignment(rt, obj, s, "ON CONFLICT DO UPDATE")
		if err != nil {
			return nil, err
		}
		if slices.Contains(obj.PrimaryKey, idx) {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ON CONFLICT DO UPDATE SET of a primary key column is not supported").WithPosition(loc(rt.Location))
		}
		for _, st := range u.set {
			if st.col == idx {
				return nil, multipleAssignments(rt.Name)
			}
		}
		ev, err := scalar.Compile(ce)
		if err != nil {
			return nil, err
		}
		u.set = append(u.set, upsertSet{col: idx, ev: ev})
	}
	if oc.WhereClause != nil {
		pred, err := b.expr(oc.WhereClause, &exprCtx{s: s, what: "WHERE"})
		if err != nil {
			return nil, err
		}
		if pred, err = b.coerceBool(pred, "WHERE", 0); err != nil {
			return nil, err
		}
		if u.where, err = scalar.CompilePredicate(pred); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// conflictTarget checks that the conflict target names the primary key:
// its columns in any order, or its constraint. DO NOTHING may omit the
// target when the primary key is the table's only unique constraint.
func (b *binder) conflictTarget(infer *pg_query.InferClause, obj *catalog.Object, nothing bool) error {
	unsupported := pgerr.New(pgerr.FeatureNotSupported, "ON CONFLICT is supported on the primary key only")
	if infer == nil {
		if !nothing {
			return pgerr.New(pgerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
				WithHint("For example, ON CONFLICT (column_name).")
		}
		if len(b.cat.UniqueIndexes(obj.ID)) > 0 {
			return unsupported.WithHint("Name the primary key's columns as the conflict target.")
		}
		return nil
	}
	if infer.Conname != "" {
		if infer.Conname != obj.Name+"_pkey" {
			return unsupported
		}
		return nil
	}
	if infer.WhereClause != nil {
		return unsupported
	}
	var cols []int
	for _, n := range infer.IndexElems {
		el := n.GetIndexElem()
		if el == nil || el.Expr != nil {
			return unsupported
		}
		idx := columnIndex(obj, el.Name)
		if idx < 0 {
			return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", el.Name)
		}
		cols = append(cols, idx)
	}
	slices.Sort(cols)
	pk := slices.Sorted(slices.Values(obj.PrimaryKey))
	if !slices.Equal(slices.Compact(cols), pk) {
		if len(b.cat.UniqueIndexes(obj.ID)) > 0 {
			return unsupported
		}
		return pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
	}
	return nil
}

// resolve decides what a proposed row whose key is held by existing
// becomes: nil to skip it, or the updated row. affected says whether
// this statement already inserted or updated the row.
func (u *upsert) resolve(ev *scalar.EvalContext, existing, proposed types.Row, affected bool) (types.Row, error) {
	if u.nothing {
		return nil, nil
	}
	if affected {
		return nil, pgerr.New(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
			WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
	}
	both := make(types.Row, 0, len(existing)+len(proposed))
	both = append(append(both, existing...), proposed...)
	if u.where != nil {
		ok, err := u.where(ev, both)
		if err != nil || !ok {
			return nil, err
		}
	}
	row := slices.Clone(existing)
	for _, st := range u.set {
		d, err := st.ev(ev, both)
		if err != nil {
			return nil, err
		}
		row[st.col] = d
	}
	return row, nil
}
