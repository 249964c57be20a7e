package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/storage"
)

// recover rebuilds the engine's state from the store: the catalog in id
// order (every object after the objects it reads) and where each table's
// rows end, without reading a row; the dataflows of materialized views
// and indexes are built and left for Run to hydrate in the background
// (see hydrate.go), from their persisted state when the store holds it
// in this build's format, else from their inputs.
func (e *Engine) recover(ctx context.Context) error {
	start := time.Now()
	if v, ok, err := e.store.Meta("ts"); err != nil {
		return err
	} else if ok && len(v) == 8 {
		e.ts = binary.BigEndian.Uint64(v)
	}
	var objs []*catalog.Object
	if err := e.store.Catalog(func(id uint64, data []byte) error {
		o := &catalog.Object{}
		if err := json.Unmarshal(data, o); err != nil {
			return fmt.Errorf("catalog entry %d: %w", id, err)
		}
		objs = append(objs, o)
		return nil
	}); err != nil {
		return err
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].ID < objs[j].ID })
	legacy, err := e.checkStateFormat(len(objs) > 0)
	if err != nil {
		return err
	}
	fix := e.store.NewBatch()
	if len(objs) > 0 {
		e.log.Info("opening", "objects", len(objs))
	}
	for _, o := range objs {
		if err := e.recoverObject(o, legacy, fix); err != nil {
			fix.Discard()
			return fmt.Errorf("recover %s %q: %w", o.Kind, o.Name, err)
		}
		e.cat.Add(o)
	}
	if err := e.dropStrayState(fix); err != nil {
		fix.Discard()
		return err
	}
	if err := fix.Commit(); err != nil {
		return fmt.Errorf("commit recovery: %w", err)
	}
	if err := e.wireSources(); err != nil {
		return err
	}
	if len(objs) > 0 {
		e.log.Info("opened; views hydrate in the background", "objects", len(objs), "hydrating", len(e.hydration.jobs),
			"elapsed", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// checkStateFormat compares the format of the store's persisted view
// state with this build's. State of another format is dropped before
// anything reads it, and its views are rebuilt; a store written before
// view state was persisted (legacy, reported true) also lacks the tables'
// row counts.
func (e *Engine) checkStateFormat(hasObjects bool) (legacy bool, err error) {
	v, ok, err := e.store.Meta(stateFormatKey)
	if err != nil {
		return false, err
	}
	fix := e.store.NewBatch()
	switch {
	case ok && string(v) == stateFormat:
		fix.Discard()
		return false, nil
	case ok:
		e.log.Warn("the persisted view state is in a format this build cannot read; every view is rebuilt from its inputs",
			"format", string(v), "readable_format", stateFormat)
		fix.DropAllState()
	case hasObjects:
		e.log.Info("the store predates persisted view state; views are rebuilt from their inputs once")
		legacy = true
	}
	fix.SetMeta(stateFormatKey, []byte(stateFormat))
	if err := fix.Commit(); err != nil {
		return false, fmt.Errorf("record the state format: %w", err)
	}
	return legacy, nil
}

func (e *Engine) recoverObject(o *catalog.Object, legacy bool, fix *storage.Batch) error {
	switch o.Kind {
	case catalog.KindSequence:
		return e.recoverSequence(o)
	case catalog.KindTable, catalog.KindSource, catalog.KindSubsource, catalog.KindConnection, catalog.KindSecret:
		if o.HasRows() {
			if err := e.openRelation(o, legacy, fix); err != nil {
				return err
			}
		}
		if err := e.addWatermark(o); err != nil {
			return err
		}
		if o.Kind == catalog.KindSource {
			return e.recoverSource(o)
		}
	case catalog.KindView, catalog.KindMaterializedView:
		plan, err := e.binder.PlanView(e.cat, o)
		if err != nil {
			return err
		}
		o.Plan = plan
		if o.Kind == catalog.KindView {
			return nil
		}
		f, err := e.buildViewFlow(o, o.Plan)
		if err != nil {
			return err
		}
		e.addJob(e.hydrationOf(f, fix))
	case catalog.KindSink:
		return e.recoverSink(o)
	case catalog.KindRole, catalog.KindDatabase:
	case catalog.KindIndex:
		f, err := e.buildIndexFlow(o)
		if err != nil {
			return err
		}
		e.addJob(e.hydrationOf(f, fix))
	default:
		return pgerr.New(pgerr.DataCorrupted, "unknown object kind %d", o.Kind)
	}
	return nil
}

// hydrationOf decides how a flow comes back: restored from its persisted
// state when the store holds state of the flow as this build lowers it,
// else rebuilt from its inputs. A flow that does not persist now loses
// whatever state it has: its later ticks will not keep it current, and
// a start that persists again must not find it.
func (e *Engine) hydrationOf(f *flow, fix *storage.Batch) *hydrationJob {
	j := &hydrationJob{f: f}
	if f.state == nil {
		j.reason = "its state is not persisted"
		fix.DropState(f.obj.ID)
		return j
	}
	h, ok, err := e.store.StateHeader(f.obj.ID)
	switch {
	case err != nil:
		j.reason = "its persisted state cannot be read: " + err.Error()
	case !ok:
		j.reason = "it has no persisted state"
	case !bytes.Equal(h, f.header):
		j.reason = "its persisted state was written for another plan of it"
	default:
		j.restore = true
	}
	return j
}

// dropStrayState deletes the state of flows the catalog does not hold:
// what a catalog change that failed, or a crash in its middle, left.
func (e *Engine) dropStrayState(fix *storage.Batch) error {
	return e.store.StateFlows(func(id uint64) error {
		if _, ok := e.cat.ByID(id); !ok {
			fix.DropState(id)
		}
		return nil
	})
}

// rowsKey is the metadata key of a relation's row count.
func rowsKey(id uint64) string { return "rows/" + strconv.FormatUint(id, 10) }

// openRelation opens a durable collection without reading its rows: only
// its row count, and where its row ids end. A store written before row
// counts were kept (legacy) counts the rows once.
func (e *Engine) openRelation(o *catalog.Object, legacy bool, fix *storage.Batch) error {
	if o.Cold {
		t := newColdState(o, e.store)
		last, ok, err := e.store.LastKey(o.ID)
		if err != nil {
			return err
		}
		if ok {
			t.nextRowID = rowIDOf(string(last)) + 1
		}
		e.tables[o.ID] = t
		e.dirty[o.ID] = true
		return nil
	}
	t := newTableState(o, &e.base)
	if v, ok, err := e.store.Meta(rowsKey(o.ID)); err != nil {
		return err
	} else if ok {
		n, k := binary.Varint(v)
		if k <= 0 {
			return fmt.Errorf("corrupt row count of %s", o.Name)
		}
		t.rows = n
	} else if legacy && !o.NotStored {
		if err := e.store.Scan(o.ID, func([]byte, []byte) error {
			t.rows++
			return nil
		}); err != nil {
			return err
		}
		fix.SetMeta(rowsKey(o.ID), binary.AppendVarint(nil, t.rows))
	}
	if len(o.PrimaryKey) == 0 && !o.NotStored {
		last, ok, err := e.store.LastKey(o.ID)
		if err != nil {
			return err
		}
		if ok {
			t.nextRowID = rowIDOf(string(last)) + 1
		}
	}
	e.tables[o.ID] = t
	e.dirty[o.ID] = true
	return nil
}
