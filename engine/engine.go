package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
)

// Binder rebuilds, on start, what the engine cannot from stored data
// alone: the plan of a view and the runtime of a source, from the SQL
// statements that created them. The SQL front end implements it; the
// engine calls it while it replays the catalog, with the catalog as
// loaded so far (every object the one at hand can read).
type Binder interface {
	// PlanView binds and optimises a view's or materialized view's
	// stored definition.
	PlanView(cat *catalog.Catalog, o *catalog.Object) (planner.Node, error)
	// OpenSource builds the source a stored CREATE SOURCE describes. The
	// engine starts it with the positions stored last.
	OpenSource(cat *catalog.Catalog, o *catalog.Object) (sources.Source, error)
}

// coordConfig configures the coordinator.
type Config struct {
	// DataDir is where the Pebble store lives.
	DataDir string
	Logger  *slog.Logger
	// Binder rebuilds views' plans and sources on start.
	Binder Binder
}

// openCoordinator opens the store, replays the catalog and rebuilds every
// table and dataflow from durable state. The engine serves once run is
// running.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	store, err := storage.Open(cfg.DataDir, storage.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	c := &Engine{
		store:      store,
		log:        log,
		binder:     cfg.Binder,
		reqs:       make(chan *coordReq, maxGroupCommit),
		stopped:    make(chan struct{}),
		cat:        catalog.New(),
		tables:     map[uint64]*tableState{},
		readers:    map[uint64][]*flow{},
		flowIndex:  map[uint64]*flow{},
		running:    map[uint64]*runningSource{},
		snapTables: new(btree.Map[uint64, *TableSnap]),
		snapViews:  new(btree.Map[uint64, *dataflow.Snapshot]),
		dirty:      map[uint64]bool{},
	}
	if err := c.recover(ctx); err != nil {
		store.Close()
		return nil, err
	}
	c.publish()
	return c, nil
}

// Close saves the sequences' exact state and closes the store. run must
// have returned.
func (c *Engine) Close() error {
	saveErr := c.saveSequences()
	if err := c.store.Close(); err != nil {
		return err
	}
	return saveErr
}

// Snapshot returns the latest published snapshot.
func (c *Engine) Snapshot() *Snapshot { return c.snap.Load() }

// recover rebuilds the engine's state from the store: the catalog in id
// order (every object after the objects it reads), table contents, and the
// dataflows of materialized views and indexes, hydrated from their inputs.
func (c *Engine) recover(ctx context.Context) error {
	start := time.Now()
	if v, ok, err := c.store.Meta("ts"); err != nil {
		return err
	} else if ok && len(v) == 8 {
		c.ts = binary.BigEndian.Uint64(v)
	}
	var objs []*catalog.Object
	if err := c.store.Catalog(func(id uint64, data []byte) error {
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
		c.log.Info("rehydrating", "objects", len(objs))
	}
	var rows int64
	for i, o := range objs {
		if err := c.recoverObject(ctx, o, &rows); err != nil {
			return fmt.Errorf("recover %s %q: %w", o.Kind, o.Name, err)
		}
		c.cat.Add(o)
		c.log.Info("rehydrated", "kind", o.Kind.String(), "name", o.Name, "progress", fmt.Sprintf("%d/%d", i+1, len(objs)))
	}
	c.wireSources()
	if len(objs) > 0 {
		c.log.Info("rehydration complete", "objects", len(objs), "table_rows", rows, "elapsed", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func (c *Engine) recoverObject(ctx context.Context, o *catalog.Object, rows *int64) error {
	switch o.Kind {
	case catalog.KindSequence:
		return c.recoverSequence(o)
	case catalog.KindTable, catalog.KindSource, catalog.KindSubsource, catalog.KindConnection, catalog.KindSecret:
		if o.HasRows() {
			if err := c.loadRows(o, rows); err != nil {
				return err
			}
		}
		if o.Kind == catalog.KindSource {
			return c.recoverSource(o)
		}
	case catalog.KindView, catalog.KindMaterializedView:
		plan, err := c.binder.PlanView(c.cat, o)
		if err != nil {
			return err
		}
		o.Plan = plan
		if o.Kind == catalog.KindView {
			return nil
		}
		f, err := c.buildViewFlow(o, o.Plan)
		if err != nil {
			return err
		}
		if err := c.hydrate(ctx, f); err != nil {
			return err
		}
		c.addFlow(f)
	case catalog.KindIndex:
		f, err := c.buildIndexFlow(o)
		if err != nil {
			return err
		}
		if err := c.hydrate(ctx, f); err != nil {
			return err
		}
		c.addFlow(f)
	default:
		return pgerr.New(pgerr.DataCorrupted, "unknown object kind %d", o.Kind)
	}
	return nil
}

// loadRows reads a durable collection into memory. A cold relation stays
// in the store: only where its row ids end is read.
func (c *Engine) loadRows(o *catalog.Object, rows *int64) error {
	if o.Cold {
		t := newColdState(o, c.store)
		last, ok, err := c.store.LastKey(o.ID)
		if err != nil {
			return err
		}
		if ok {
			t.nextRowID = rowIDOf(string(last)) + 1
		}
		c.tables[o.ID] = t
		c.dirty[o.ID] = true
		return nil
	}
	t := newTableState(o)
	var maxID int64
	err := c.store.Scan(o.ID, func(k, v []byte) error {
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
	c.tables[o.ID] = t
	c.dirty[o.ID] = true
	return nil
}
