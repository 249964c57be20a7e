package sql

import (
	"context"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// rowChecker enforces NOT NULL, primary key nullness and CHECK
// constraints on the rows a statement writes.
type rowChecker struct {
	obj    *catalog.Object
	checks []scalar.Predicate
	names  []string
}

func (b *binder) rowChecker(obj *catalog.Object) (*rowChecker, error) {
	rc := &rowChecker{obj: obj}
	exprs, err := b.checkExprs(obj)
	if err != nil {
		return nil, err
	}
	for i, e := range exprs {
		p, err := scalar.CompilePredicate(&scalar.Not{Arg: &scalar.IsTruth{Arg: e, Want: false}})
		if err != nil {
			return nil, err
		}
		rc.checks = append(rc.checks, p)
		rc.names = append(rc.names, obj.Checks[i].Name)
	}
	return rc, nil
}

// check applies the columns' type modifiers to row in place and enforces
// the table's constraints.
func (rc *rowChecker) check(ev *scalar.EvalContext, row types.Row) error {
	for i, c := range rc.obj.Columns {
		if c.Type.Mod >= 0 && !row[i].IsNull() {
			d, err := types.ApplyTypmod(row[i], c.Type)
			if err != nil {
				return err
			}
			row[i] = d
		}
	}
	for i, c := range rc.obj.Columns {
		if row[i].IsNull() && (c.NotNull || rc.inKey(i)) {
			return pgerr.New(pgerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", c.Name, rc.obj.Name).
				WithDetail("Failing row contains %s.", failingRow(rc.obj, row, ev.Text))
		}
	}
	for i, p := range rc.checks {
		ok, err := p(ev, row)
		if err != nil {
			return err
		}
		if !ok {
			return pgerr.New(pgerr.CheckViolation, "new row for relation %q violates check constraint %q", rc.obj.Name, rc.names[i]).
				WithDetail("Failing row contains %s.", failingRow(rc.obj, row, ev.Text))
		}
	}
	return nil
}

func (rc *rowChecker) inKey(i int) bool {
	for _, k := range rc.obj.PrimaryKey {
		if k == i {
			return true
		}
	}
	return false
}

// failingRow renders a row as PostgreSQL's constraint errors show it.
func failingRow(obj *catalog.Object, row types.Row, cfg *types.TextConfig) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range row {
		if i > 0 {
			b.WriteString(", ")
		}
		if d.IsNull() {
			b.WriteString("null")
			continue
		}
		b.Write(types.AppendText(nil, d, obj.Columns[i].Type, cfg))
	}
	b.WriteByte(')')
	return b.String()
}

// returningResult evaluates RETURNING expressions over written rows.
func returningResult(ev *scalar.EvalContext, exprs []scalar.Expr, rows []types.Row, tag string) (pgwire.Result, error) {
	if exprs == nil {
		return commandResult(tag), nil
	}
	evs := make([]scalar.Evaluator, len(exprs))
	for i, e := range exprs {
		ev, err := scalar.Compile(e)
		if err != nil {
			return nil, err
		}
		evs[i] = ev
	}
	out := make([]types.Row, len(rows))
	for i, r := range rows {
		o := make(types.Row, len(evs))
		for j, f := range evs {
			d, err := f(ev, r)
			if err != nil {
				return nil, err
			}
			o[j] = d
		}
		out[i] = o
	}
	return &rowsResult{rows: out, tag: tag}, nil
}

func aliasOf(rv *pg_query.RangeVar) string {
	if rv.Alias != nil {
		return rv.Alias.Aliasname
	}
	return rv.Relname
}

// insertPrivileges is what an INSERT needs on its table: INSERT, and
// SELECT for RETURNING, UPDATE and SELECT for ON CONFLICT DO UPDATE,
// which reads the row it replaces.
func insertPrivileges(ins *pg_query.InsertStmt) catalog.Privileges {
	privs := catalog.PrivInsert
	if len(ins.ReturningList) > 0 {
		privs |= catalog.PrivSelect
	}
	if oc := ins.OnConflictClause; oc != nil && oc.Action == pg_query.OnConflictAction_ONCONFLICT_UPDATE {
		privs |= catalog.PrivUpdate | catalog.PrivSelect
	}
	return privs
}

func (s *session) bindInsert(cat *catalog.Catalog, ins *pg_query.InsertStmt, params []types.Type) (*boundStmt, error) {
	if ins.WithClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH in INSERT is not supported")
	}
	obj, err := writeTarget(cat, ins.Relation, "insert into")
	if err != nil {
		return nil, err
	}
	b := newBinder(cat, &s.info, params)
	b.require(obj, insertPrivileges(ins))
	var up *upsert
	if ins.OnConflictClause != nil {
		if up, err = b.onConflict(ins.OnConflictClause, obj, aliasOf(ins.Relation)); err != nil {
			return nil, err
		}
	}
	plan, err := b.insertPlan(ins, obj)
	if err != nil {
		return nil, err
	}
	ret, retCols, err := b.returning(ins.ReturningList, obj, aliasOf(ins.Relation))
	if err != nil {
		return nil, err
	}
	rc, err := b.rowChecker(obj)
	if err != nil {
		return nil, err
	}
	q, err := planner.OptimizeQuery(&planner.Query{Root: plan})
	if err != nil {
		return nil, err
	}
	return &boundStmt{
		params: b.paramTypes(),
		cols:   resultColumns(retCols),
		run: func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error) {
			ev := s.evalContext(params)
			rows, snap, err := s.insertRows(ctx, q, ev, params)
			if err != nil {
				return nil, err
			}
			base, _ := snap.Table(obj.ID)
			if base == nil {
				return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", obj.Name)
			}
			tt := s.writeTxn().table(obj)
			tt.reserve(len(rows))
			// With ON CONFLICT, out collects the rows inserted or updated,
			// and affected their keys.
			out := rows
			var affected map[string]bool
			if up != nil {
				out, affected = rows[:0:0], map[string]bool{}
			}
			for _, row := range rows {
				if err := rc.check(ev, row); err != nil {
					return nil, err
				}
				if len(obj.PrimaryKey) == 0 {
					tt.insertNew(row)
					continue
				}
				key := engine.RowKey(obj, row)
				cur, touched := tt.lookup(key)
				taken := touched && cur != nil || !touched && hasKey(base, key)
				if taken && up != nil {
					existing := cur
					if !touched {
						if existing, _, err = base.Get(key); err != nil {
							return nil, err
						}
					}
					upd, err := up.resolve(ev, existing, row, affected[key])
					if err != nil {
						return nil, err
					}
					if upd == nil {
						continue
					}
					if err := rc.check(ev, upd); err != nil {
						return nil, err
					}
					tt.set(key, upd, base)
					affected[key] = true
					out = append(out, upd)
					continue
				}
				switch {
				case taken:
					return nil, engine.UniqueViolation(obj, row)
				case touched:
					tt.set(key, row, base) // deleted earlier in the transaction
				default:
					tt.add(key, row)
				}
				if up != nil {
					affected[key] = true
					out = append(out, row)
				}
			}
			if err := s.checkUnique(snap, obj, tt); err != nil {
				return nil, err
			}
			return returningResult(ev, ret, out, "INSERT 0 "+strconv.Itoa(len(out)))
		},
	}, nil
}

// insertRows returns the rows an INSERT writes, in its source's order. A
// VALUES list is evaluated directly, one expression per value, which
// spares a 1,000-row INSERT compiling every row and consolidating the
// batch in a one-tick dataflow; any other source runs as a query. It
// also returns the snapshot the rows were read in, or, for a VALUES list,
// the latest.
func (s *session) insertRows(ctx context.Context, q *planner.Query, ev *scalar.EvalContext, params []types.Datum) ([]types.Row, *engine.Snapshot, error) {
	p, ok := q.Root.(*planner.Project)
	if !ok {
		return s.runQuerySnap(ctx, q, params)
	}
	v, ok := p.Input.(*planner.Values)
	if !ok {
		return s.runQuerySnap(ctx, q, params)
	}
	snap := s.e.snapshot()
	proj := make([]scalar.Evaluator, len(p.Exprs))
	for i, e := range p.Exprs {
		f, err := scalar.Compile(e)
		if err != nil {
			return nil, nil, err
		}
		proj[i] = f
	}
	rows := make([]types.Row, len(v.Rows))
	in := make(types.Row, len(v.Cols))
	for r, exprs := range v.Rows {
		for i, e := range exprs {
			if c, ok := e.(*scalar.Const); ok {
				in[i] = c.Val
				continue
			}
			d, err := scalar.Eval(ev, e, nil)
			if err != nil {
				return nil, nil, err
			}
			in[i] = d
		}
		out := make(types.Row, len(proj))
		for i, f := range proj {
			d, err := f(ev, in)
			if err != nil {
				return nil, nil, err
			}
			out[i] = d
		}
		rows[r] = out
	}
	return rows, snap, nil
}

func hasKey(base *engine.TableSnap, key string) bool {
	_, ok := base.GetRaw(key)
	return ok
}

func (s *session) bindUpdate(cat *catalog.Catalog, up *pg_query.UpdateStmt, params []types.Type) (*boundStmt, error) {
	if up.WithClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH in UPDATE is not supported")
	}
	obj, err := writeTarget(cat, up.Relation, "update")
	if err != nil {
		return nil, err
	}
	b := newBinder(cat, &s.info, params)
	if len(up.ReturningList) > 0 {
		b.require(obj, catalog.PrivSelect)
	}
	plan, err := b.updatePlan(up, obj, aliasOf(up.Relation))
	if err != nil {
		return nil, err
	}
	ret, retCols, err := b.returning(up.ReturningList, obj, aliasOf(up.Relation))
	if err != nil {
		return nil, err
	}
	rc, err := b.rowChecker(obj)
	if err != nil {
		return nil, err
	}
	q, err := planner.Plan(&planner.Query{Root: plan}, planner.OneTick)
	if err != nil {
		return nil, err
	}
	width := len(obj.Columns)
	return &boundStmt{
		params: b.paramTypes(),
		cols:   resultColumns(retCols),
		run: func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error) {
			// The rows' expected contents at commit come from the very
			// snapshot the new rows were computed from: a later one
			// would let a concurrent change be overwritten unseen.
			rows, snap, err := s.runQuerySnap(ctx, q, params)
			if err != nil {
				return nil, err
			}
			ev := s.evalContext(params)
			base, _ := snap.Table(obj.ID)
			if base == nil {
				return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", obj.Name)
			}
			tt := s.writeTxn().table(obj)
			newRows := make([]types.Row, len(rows))
			// Old keys go first, then new ones, so that a statement that
			// shifts keys (SET id = id + 1) checks uniqueness once, at its end.
			var moved []int
			for i, r := range rows {
				row := r[:width:width]
				if err := rc.check(ev, row); err != nil {
					return nil, err
				}
				newRows[i] = row
				key := string(r[width].Str())
				if len(obj.PrimaryKey) > 0 && engine.RowKey(obj, row) != key {
					tt.set(key, nil, base)
					moved = append(moved, i)
					continue
				}
				tt.set(key, row, base)
			}
			for _, i := range moved {
				key := engine.RowKey(obj, newRows[i])
				if cur, touched := tt.lookup(key); (touched && cur != nil) || (!touched && hasKey(base, key)) {
					return nil, engine.UniqueViolation(obj, newRows[i])
				}
				tt.set(key, newRows[i], base)
			}
			if err := s.checkUnique(snap, obj, tt); err != nil {
				return nil, err
			}
			return returningResult(ev, ret, newRows, "UPDATE "+strconv.Itoa(len(rows)))
		},
	}, nil
}

func (s *session) bindDelete(cat *catalog.Catalog, del *pg_query.DeleteStmt, params []types.Type) (*boundStmt, error) {
	if del.WithClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH in DELETE is not supported")
	}
	obj, err := writeTarget(cat, del.Relation, "delete from")
	if err != nil {
		return nil, err
	}
	b := newBinder(cat, &s.info, params)
	if len(del.ReturningList) > 0 {
		b.require(obj, catalog.PrivSelect)
	}
	plan, err := b.deletePlan(del, obj, aliasOf(del.Relation))
	if err != nil {
		return nil, err
	}
	ret, retCols, err := b.returning(del.ReturningList, obj, aliasOf(del.Relation))
	if err != nil {
		return nil, err
	}
	q, err := planner.Plan(&planner.Query{Root: plan}, planner.OneTick)
	if err != nil {
		return nil, err
	}
	width := len(obj.Columns)
	return &boundStmt{
		params: b.paramTypes(),
		cols:   resultColumns(retCols),
		run: func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error) {
			rows, snap, err := s.runQuerySnap(ctx, q, params)
			if err != nil {
				return nil, err
			}
			base, _ := snap.Table(obj.ID)
			if base == nil {
				return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", obj.Name)
			}
			tt := s.writeTxn().table(obj)
			old := make([]types.Row, len(rows))
			for i, r := range rows {
				tt.set(string(r[width].Str()), nil, base)
				old[i] = r[:width:width]
			}
			return returningResult(s.evalContext(params), ret, old, "DELETE "+strconv.Itoa(len(rows)))
		},
	}, nil
}
