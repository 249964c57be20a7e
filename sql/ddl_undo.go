package sql

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
)

// Catalog changes inside a transaction block.
//
// A catalog change commits at once, inside a block too: other sessions
// see it before the block commits. The block keeps an undo step for
// each change (what it created, what it dropped with its rows, the
// entries it renamed or rewrote as they were), and when it rolls back
// (or its COMMIT fails, or a ROLLBACK TO SAVEPOINT goes back past the
// change) it takes the steps back, newest first: it drops what a step
// created, puts back the entries a step replaced, and restores what a
// step dropped (engine.DDL.Restore), tables with the rows they had. So
// a rolled-back block leaves the catalog and the data as it found them,
// as PostgreSQL's transactional DDL does, as long as no other session
// has taken a dropped object's name in the meantime (PostgreSQL would
// have made that session wait). A crash in the middle of a block keeps
// its changes.

// ddlAllowed refuses a catalog change in an implicit transaction that
// has written: catalog changes commit on their own, at once.
func (s *session) ddlAllowed(tag string) error {
	if s.txn != nil && s.txn.implicit && s.txn.hasWrites() {
		return pgerr.New(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", tag)
	}
	return nil
}

// undoableKinds are the objects a transaction block may create, drop or
// rename: their undo puts everything back. Sources, sinks, connections
// and secrets reach outside and run only outside a block.
var undoableKinds = map[catalog.ObjectKind]bool{catalog.KindTable: true, catalog.KindView: true, catalog.KindMaterializedView: true, catalog.KindIndex: true, catalog.KindSequence: true,
	catalog.KindRole: true}

// undoStep takes back one catalog change of a transaction block.
type undoStep struct {
	created  []uint64
	replaced []*catalog.Object
	dropped  []engine.Dropped
}

// submitDDL runs a catalog change on the coordinator and sends the
// notices it produced. Inside a transaction block it records the
// change's undo step, and refuses objects that cannot be taken back.
func (s *session) submitDDL(ctx context.Context, fn func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error) error {
	var notices []*pgerr.Error
	var step undoStep
	inBlock := s.txn != nil && !s.txn.implicit
	err := s.e.eng.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		notices, step = notices[:0], undoStep{}
		tx.SetOwner(s.info.role)
		if err := fn(ctx, tx, func(n *pgerr.Error) { notices = append(notices, n) }); err != nil {
			return err
		}
		if !inBlock {
			return nil
		}
		for _, o := range tx.CreatedObjects() {
			if !undoableKinds[o.Kind] {
				return pgerr.New(pgerr.ActiveSQLTransaction, "CREATE %s cannot run inside a transaction block", strings.ToUpper(o.Kind.String()))
			}
			step.created = append(step.created, o.ID)
		}
		for _, d := range tx.DroppedObjects() {
			if !undoableKinds[d.Obj.Kind] {
				return pgerr.New(pgerr.ActiveSQLTransaction, "DROP %s cannot run inside a transaction block", strings.ToUpper(d.Obj.Kind.String()))
			}
			step.dropped = append(step.dropped, d)
		}
		step.replaced = tx.ReplacedObjects()
		return nil
	})
	for _, n := range notices {
		s.notice(n)
	}
	if err == nil && inBlock {
		s.txn.undo = append(s.txn.undo, step)
	}
	return err
}

// undoCreates takes back, newest first, the catalog changes of a
// transaction block that does not commit.
func (s *session) undoCreates(ctx context.Context, t *txn) {
	if t == nil {
		return
	}
	s.undoSteps(ctx, t.undo)
}

// undoSteps takes back steps, newest first. Each restored object is a
// change of its own, so that what it reads exists when it is rebuilt.
func (s *session) undoSteps(ctx context.Context, steps []undoStep) {
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		err := s.e.eng.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
			for j := len(st.created) - 1; j >= 0; j-- {
				if o, ok := tx.Catalog().ByID(st.created[j]); ok {
					if err := dropWithDependents(tx, o, true, func(*pgerr.Error) {}); err != nil {
						return err
					}
				}
			}
			for j := len(st.replaced) - 1; j >= 0; j-- {
				old := st.replaced[j]
				if cur, ok := tx.Catalog().ByID(old.ID); ok {
					if err := tx.Replace(cur, old); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			s.e.log.Warn("could not take back a catalog change of a rolled-back transaction block", "err", err)
		}
		dropped := slices.Clone(st.dropped)
		slices.SortFunc(dropped, func(a, b engine.Dropped) int { return cmp.Compare(a.Obj.ID, b.Obj.ID) })
		for _, d := range dropped {
			err := s.e.eng.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error { return tx.Restore(ctx, d) })
			if err != nil {
				s.e.log.Warn("could not restore an object dropped by a rolled-back transaction block", "name", d.Obj.Name, "err", err)
			}
		}
	}
}
