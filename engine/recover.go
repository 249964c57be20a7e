package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
)

// recover rebuilds the engine's state from the store: the catalog in id
// order (every object after the objects it reads), table contents, and the
// dataflows of materialized views and indexes, hydrated from their inputs.
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
	if len(objs) > 0 {
		e.log.Info("rehydrating", "objects", len(objs))
	}
	var rows int64
	for i, o := range objs {
		if err := e.recoverObject(ctx, o, &rows); err != nil {
			return fmt.Errorf("recover %s %q: %w", o.Kind, o.Name, err)
		}
		e.cat.Add(o)
		e.log.Info("rehydrated", "kind", o.Kind.String(), "name", o.Name, "progress", fmt.Sprintf("%d/%d", i+1, len(objs)))
	}
	if err := e.wireSources(); err != nil {
		return err
	}
	if len(objs) > 0 {
		e.log.Info("rehydration complete", "objects", len(objs), "table_rows", rows, "elapsed", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func (e *Engine) recoverObject(ctx context.Context, o *catalog.Object, rows *int64) error {
	switch o.Kind {
	case catalog.KindSequence:
		return e.recoverSequence(o)
	case catalog.KindTable, catalog.KindSource, catalog.KindSubsource, catalog.KindConnection, catalog.KindSecret:
		if o.HasRows() {
			if err := e.loadRows(o, rows); err != nil {
				return err
			}
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
		if err := e.hydrate(ctx, f); err != nil {
			return err
		}
		e.addFlow(ctx, f)
	case catalog.KindSink:
		return e.recoverSink(o)
	case catalog.KindRole, catalog.KindDatabase:
	case catalog.KindIndex:
		f, err := e.buildIndexFlow(o)
		if err != nil {
			return err
		}
		if err := e.hydrate(ctx, f); err != nil {
			return err
		}
		e.addFlow(ctx, f)
	default:
		return pgerr.New(pgerr.DataCorrupted, "unknown object kind %d", o.Kind)
	}
	return nil
}

// loadRows reads a durable collection into memory. A cold relation stays
// in the store: only where its row ids end is read.
func (e *Engine) loadRows(o *catalog.Object, rows *int64) error {
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
	t := newTableState(o)
	var maxID int64
	err := e.store.Scan(o.ID, func(k, v []byte) error {
		t.rows.Load(storedRow{key: string(k), val: string(v)})
		if len(o.PrimaryKey) == 0 {
			maxID = max(maxID, rowIDOf(string(k)))
		}
		*rows++
		return nil
	})
	if err != nil {
		return err
	}
	t.nextRowID = maxID + 1
	e.tables[o.ID] = t
	e.dirty[o.ID] = true
	return nil
}
