package engine

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// watermark is the event-time watermark of a table or source relation
// with a WATERMARK clause: the greatest time seen in its column minus the
// lag, moved on by every row accepted, in arrival order. A change to a
// row whose time lies behind it is late: an insertion is counted and
// dropped, or routed to the errors relation (LATE DATA = 'dead-letter'),
// never applied; a client's UPDATE or DELETE of such a row fails. So no
// change with a time behind the watermark ever reaches a view, which is
// what lets windows close and their state be forgotten (see
// planner.ColumnWatermark). The watermark and the count of late rows are
// stored with each tick that moves them.
//
// The coordinator moves the watermark while it applies a tick, before
// maintenance, which reads it on the maintainer goroutine after the
// hand-off; late is also read by SHOW SOURCES.
type watermark struct {
	obj   *catalog.Object
	col   int
	lag   int64
	kind  types.Family
	value int64
	ok    bool
	late  atomic.Int64
	dirty bool
}

func newWatermark(o *catalog.Object) *watermark {
	def := o.Watermark
	return &watermark{obj: o, col: def.Column, lag: def.Lag, kind: o.Columns[def.Column].Type.Family}
}

// read returns the watermark as a dataflow.Watermark reads it.
func (w *watermark) read() (types.Datum, bool) {
	if !w.ok {
		return types.Null, false
	}
	return timeDatum(w.kind, w.value), true
}

func timeDatum(kind types.Family, us int64) types.Datum {
	if kind == types.TimestampTZ {
		return types.NewTimestampTZ(us)
	}
	return types.NewTimestamp(us)
}

// isLate reports whether a row's time lies behind the watermark. A row
// without a time is never late.
func (w *watermark) isLate(row types.Row) bool {
	t := row[w.col]
	return w.ok && !t.IsNull() && t.Int() < w.value
}

// advance moves the watermark on with an accepted row.
func (w *watermark) advance(row types.Row) {
	t := row[w.col]
	if t.IsNull() {
		return
	}
	v := t.Int() - w.lag
	if !w.ok || v > w.value {
		w.value, w.ok, w.dirty = v, true, true
	}
}

// lateRow builds the errors relation's row for a late row.
func (w *watermark) lateRow(row types.Row, at time.Time) types.Row {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range row {
		if i > 0 {
			b.WriteByte(',')
		}
		if !d.IsNull() {
			b.WriteString(types.FormatText(d, w.obj.Columns[i].Type, nil))
		}
	}
	b.WriteByte(')')
	msg := fmt.Sprintf("late: %s %s is behind the watermark %s", w.obj.Columns[w.col].Name,
		types.FormatText(row[w.col], w.obj.Columns[w.col].Type, nil), types.FormatText(timeDatum(w.kind, w.value), w.obj.Columns[w.col].Type, nil))
	return types.Row{types.Null, types.Null, types.Null, types.NewBytea([]byte(b.String())), types.NewText(msg), types.NewTimestampTZ(at.UnixMicro())}
}

// save writes the watermark and the late count to the tick's batch
// when they changed.
func (w *watermark) save(batch *storage.Batch) {
	if !w.dirty {
		return
	}
	w.dirty = false
	id := strconv.FormatUint(w.obj.ID, 10)
	batch.SetMeta("watermark/"+id, binary.BigEndian.AppendUint64(nil, uint64(w.value)))
	batch.SetMeta("late/"+id, binary.BigEndian.AppendUint64(nil, uint64(w.late.Load())))
}

// load reads the stored watermark and late count.
func (w *watermark) load(store *storage.DB) error {
	id := strconv.FormatUint(w.obj.ID, 10)
	if v, ok, err := store.Meta("watermark/" + id); err != nil {
		return err
	} else if ok && len(v) == 8 {
		w.value, w.ok = int64(binary.BigEndian.Uint64(v)), true
	}
	if v, ok, err := store.Meta("late/" + id); err != nil {
		return err
	} else if ok && len(v) == 8 {
		w.late.Store(int64(binary.BigEndian.Uint64(v)))
	}
	return nil
}

// dropWatermark forgets a dropped object's stored watermark.
func dropWatermark(batch *storage.Batch, id uint64) {
	s := strconv.FormatUint(id, 10)
	batch.DeleteMeta("watermark/" + s)
	batch.DeleteMeta("late/" + s)
}

// watermarkOf returns the dataflow watermark of an object, nil when it
// has none: what planner.LowerContext.Watermark asks.
func (e *Engine) watermarkOf(id planner.ObjectID) dataflow.Watermark {
	w := e.wms[uint64(id)]
	if w == nil {
		return nil
	}
	return w.read
}

// LateRows returns how many late rows a table or source relation has
// refused, false when it has no watermark (for SHOW SOURCES). It may be
// called from any goroutine.
func (e *Engine) LateRows(id uint64) (int64, bool) {
	e.wmMu.Lock()
	w := e.wms[id]
	e.wmMu.Unlock()
	if w == nil {
		return 0, false
	}
	return w.late.Load(), true
}

// addWatermark starts keeping the watermark of an object that has one.
func (e *Engine) addWatermark(o *catalog.Object) error {
	if o.Watermark == nil {
		return nil
	}
	w := newWatermark(o)
	if err := w.load(e.store); err != nil {
		return err
	}
	e.wmMu.Lock()
	e.wms[o.ID] = w
	e.wmMu.Unlock()
	return nil
}

// errorsRelation returns the relation an object's late rows are routed
// to: its own errors relation (a table's, created with LATE DATA =
// 'dead-letter') or its source's.
func errorsRelation(cat *catalog.Catalog, o *catalog.Object) uint64 {
	owner := o.ID
	if o.Kind == catalog.KindSubsource {
		owner = o.Source
	}
	for _, s := range cat.Objects(catalog.KindSubsource) {
		if s.Source == owner && s.Role == "errors" {
			return s.ID
		}
	}
	return 0
}

// screenTable applies a table's watermark to a transaction's changes of
// it, in order: a new row behind the watermark is late, left out and
// counted (and with dead-letter routed, as a change of the table's
// errors relation added to w), a row it accepts moves the watermark on,
// and an update or deletion of a row behind it fails the transaction
// with 55000. It returns the changes to apply.
func (e *Engine) screenTable(wm *watermark, w *WriteSet, changes []RowChange, at time.Time) ([]RowChange, error) {
	kept := make([]RowChange, 0, len(changes))
	value, ok, late, dirty := wm.value, wm.ok, wm.late.Load(), wm.dirty
	for _, ch := range changes {
		if ch.Existed {
			old, err := types.DecodeRow([]byte(ch.Expect), nil)
			if err != nil {
				return nil, err
			}
			if wm.isLate(old) || (ch.Row != nil && wm.isLate(ch.Row)) {
				// The transaction fails: its rows move nothing.
				wm.value, wm.ok, wm.dirty = value, ok, dirty
				wm.late.Store(late)
				return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "cannot change a row of %q behind its watermark", wm.obj.Name).
					WithDetail("The watermark of %s is %s.", wm.obj.Columns[wm.col].Name, types.FormatText(timeDatum(wm.kind, wm.value), wm.obj.Columns[wm.col].Type, nil))
			}
		}
		if ch.Row != nil && !ch.Existed && wm.isLate(ch.Row) {
			e.refuseLate(wm, w, ch.Row, at)
			continue
		}
		if ch.Row != nil {
			wm.advance(ch.Row)
		}
		kept = append(kept, ch)
	}
	return kept, nil
}

// refuseLate counts a late row of a table and routes it when its policy
// says so.
func (e *Engine) refuseLate(wm *watermark, w *WriteSet, row types.Row, at time.Time) {
	wm.late.Add(1)
	wm.dirty = true
	if wm.obj.LateData != catalog.LateDeadLetter {
		return
	}
	if id := errorsRelation(e.cat, wm.obj); id != 0 {
		w.Tables[id] = append(w.Tables[id], RowChange{Row: wm.lateRow(row, at)})
	}
}

// screen applies the watermarks of the tables a transaction writes to
// its changes (see screenTable).
func (e *Engine) screen(w *WriteSet) error {
	at := e.clock.Now()
	for _, id := range w.tableIDs() {
		wm := e.wms[id]
		if wm == nil {
			continue
		}
		kept, err := e.screenTable(wm, w, w.Tables[id], at)
		if err != nil {
			return err
		}
		w.Tables[id] = kept
	}
	return nil
}

// saveWatermarks writes the watermarks a tick moved to its batch, and
// reports whether there were any.
func (e *Engine) saveWatermarks(batch *storage.Batch) bool {
	saved := false
	for _, w := range e.wms {
		if w.dirty {
			w.save(batch)
			saved = true
		}
	}
	return saved
}

// screenSource applies a source relation's watermark to a batch of its
// changes, in order, as screenTable does; a late change, insertion or
// retraction, is counted and left out, and with dead-letter returned
// as a row of the source's errors relation.
func screenSource(wm *watermark, changes []sources.Change, at time.Time) (kept, dead []sources.Change) {
	kept = make([]sources.Change, 0, len(changes))
	for _, ch := range changes {
		if !wm.isLate(ch.Row) {
			if ch.Diff > 0 {
				wm.advance(ch.Row)
			}
			kept = append(kept, ch)
			continue
		}
		wm.late.Add(1)
		wm.dirty = true
		if wm.obj.LateData == catalog.LateDeadLetter {
			dead = append(dead, sources.Change{Row: wm.lateRow(ch.Row, at), Diff: 1})
		}
	}
	return kept, dead
}
