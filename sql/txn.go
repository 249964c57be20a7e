package sql

import (
	"context"
	"encoding/binary"
	"sort"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// txn is an open transaction: the writes it has made, buffered until
// COMMIT, and visible to its own later statements.
type txn struct {
	implicit bool
	state    txnState
	start    time.Time
	tables   map[uint64]*txnTable
	// undo takes back the block's catalog changes unless it commits
	// (ddl_undo.go).
	undo []undoStep
	// savepoints are the block's savepoints in effect, oldest first.
	savepoints []savepoint
	// notifies and listens wait for the commit (notify.go); xactLocks
	// is set once the transaction has taken an advisory lock.
	notifies  []notification
	listens   []listenOp
	xactLocks bool
}

func newTxn(implicit bool) *txn {
	return &txn{implicit: implicit, start: time.Now(), tables: map[uint64]*txnTable{}}
}

// txnTable holds a transaction's pending changes to one table, by storage
// key. New rows of a table without primary key get provisional keys that
// cannot collide with stored row ids; commit assigns real ones.
type txnTable struct {
	obj     *catalog.Object
	changes map[string]*pendingRow
	order   []string
	nextTmp uint64
}

type pendingRow struct {
	row     types.Row // nil: deleted
	existed bool      // the key held expect in the snapshot first read
	expect  string
	tmp     bool // provisional key of a new row without primary key
}

// provisionalPrefix starts provisional keys; stored row ids are 8 bytes.
const provisionalPrefix = "\xff\xff\xff\xff\xff\xff\xff\xff\xff"

func (t *txn) table(obj *catalog.Object) *txnTable {
	tt, ok := t.tables[obj.ID]
	if !ok {
		tt = &txnTable{obj: obj, changes: map[string]*pendingRow{}}
		t.tables[obj.ID] = tt
	}
	return tt
}

// hasWrites reports whether the transaction changed any table.
func (t *txn) hasWrites() bool {
	for _, tt := range t.tables {
		if len(tt.changes) > 0 {
			return true
		}
	}
	return false
}

// set records the new value of key; base is the snapshot the statement
// read, consulted the first time the key is touched.
func (tt *txnTable) set(key string, row types.Row, base *engine.TableSnap) {
	if p, ok := tt.changes[key]; ok {
		p.row = row
		return
	}
	p := &pendingRow{row: row}
	if base != nil {
		p.expect, p.existed = base.GetRaw(key)
	}
	tt.changes[key] = p
	tt.order = append(tt.order, key)
}

// reserve makes room for n changes in an untouched table, so that a bulk
// INSERT does not grow the map and the order step by step.
func (tt *txnTable) reserve(n int) {
	if len(tt.changes) == 0 {
		tt.changes = make(map[string]*pendingRow, n)
		tt.order = make([]string, 0, n)
	}
}

// add records a new row under a key that neither the transaction nor the
// snapshot holds, which the caller has checked.
func (tt *txnTable) add(key string, row types.Row) {
	tt.changes[key] = &pendingRow{row: row}
	tt.order = append(tt.order, key)
}

// insertNew adds a row of a table without primary key.
func (tt *txnTable) insertNew(row types.Row) {
	tt.nextTmp++
	key := provisionalPrefix + string(binary.BigEndian.AppendUint64(nil, tt.nextTmp))
	tt.changes[key] = &pendingRow{row: row, tmp: true}
	tt.order = append(tt.order, key)
}

// lookup returns the transaction's view of key: its pending row, or ok ==
// false when the transaction has not touched the key.
func (tt *txnTable) lookup(key string) (row types.Row, touched bool) {
	p, ok := tt.changes[key]
	if !ok {
		return nil, false
	}
	return p.row, true
}

// overlay returns the table's contents as the transaction sees them:
// the snapshot with the pending changes applied. withKey appends each
// row's storage key as a bytea column.
func (tt *txnTable) overlay(base *engine.TableSnap, withKey bool, emit func(types.Row)) error {
	err := base.Scan(func(key string, row types.Row) bool {
		if _, touched := tt.changes[key]; touched {
			return true
		}
		emit(keyed(row, key, withKey))
		return true
	})
	if err != nil {
		return err
	}
	keys := append([]string(nil), tt.order...)
	sort.Strings(keys)
	for _, k := range keys {
		if p := tt.changes[k]; p.row != nil {
			emit(keyed(p.row, k, withKey))
		}
	}
	return nil
}

// keyed appends the storage key to a row when asked.
func keyed(row types.Row, key string, withKey bool) types.Row {
	if !withKey {
		return row
	}
	out := make(types.Row, len(row)+1)
	copy(out, row)
	out[len(row)] = types.NewBytea([]byte(key))
	return out
}

// writeSet converts the pending changes into the coordinator's form.
func (t *txn) writeSet() *engine.WriteSet {
	w := &engine.WriteSet{Tables: map[uint64][]engine.RowChange{}}
	for id, tt := range t.tables {
		w.Tables[id] = make([]engine.RowChange, 0, len(tt.order))
		for _, k := range tt.order {
			p := tt.changes[k]
			switch {
			case p.tmp && p.row == nil:
				continue // inserted and deleted again
			case p.tmp:
				w.Tables[id] = append(w.Tables[id], engine.RowChange{Row: p.row})
			case !p.existed && p.row == nil:
				continue // a key that never existed, deleted
			default:
				w.Tables[id] = append(w.Tables[id], engine.RowChange{Key: k, Existed: p.existed, Expect: p.expect, Row: p.row})
			}
		}
	}
	return w
}

// commit makes the session's transaction durable and ends it.
func (s *session) commit(ctx context.Context) error {
	t := s.txn
	s.txn = nil
	s.closeTxnCursors(t)
	if t == nil || t.state == txnFailed {
		s.endTxn(t, false)
		return nil
	}
	if w := t.writeSet(); !w.Empty() {
		if err := s.e.eng.Commit(ctx, w); err != nil {
			s.undoCreates(ctx, t)
			s.endTxn(t, false)
			return err
		}
	}
	s.endTxn(t, true)
	return nil
}

// rollback ends the transaction without committing it.
func (s *session) rollback(ctx context.Context) {
	t := s.txn
	s.txn = nil
	s.closeTxnCursors(t)
	s.undoCreates(ctx, t)
	s.endTxn(t, false)
}

// tableInput returns a table's rows as the current transaction sees them.
// keep, when not nil, names the columns the query reads; the others may
// be NULL (see RowReader).
func (s *session) tableInput(ctx context.Context, snap *engine.Snapshot, obj *catalog.Object, withKey bool, keep func(col int) bool) (dataflow.Batch, error) {
	base, ok := snap.Table(obj.ID)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", obj.Name)
	}
	var b dataflow.Batch
	emit := func(r types.Row) { b = append(b, dataflow.Update{Row: r, Diff: 1}) }
	if s.txn != nil {
		if tt, ok := s.txn.tables[obj.ID]; ok && len(tt.changes) > 0 {
			return b, tt.overlay(base, withKey, emit)
		}
	}
	b = make(dataflow.Batch, 0, base.SizeHint())
	// A scan of a large source relation reads millions of rows from the
	// store: a canceled query stops it every scanCheckRows rows.
	dec := engine.NewRowReader(len(obj.Columns), keep)
	err := base.ScanRange("", "", dec, func(key string, row types.Row) bool {
		if len(b)%scanCheckRows == 0 && ctx.Err() != nil {
			return false
		}
		emit(keyed(row, key, withKey))
		return true
	})
	if err == nil {
		err = ctx.Err()
	}
	return b, err
}

// scanCheckRows is how many rows a query's scan reads between checks for
// cancellation.
const scanCheckRows = 1 << 16
