package engine_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// start opens an engine on dir with binder and runs it; stop ends it.
func start(dir string, binder engine.Binder) (e *engine.Engine, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	e, err := engine.Open(ctx, engine.Config{DataDir: dir, Logger: slog.New(slog.DiscardHandler), Binder: binder})
	if err != nil {
		panic(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }()
	return e, func() {
		cancel()
		<-ran
		e.Close()
	}
}

// A table is created by a catalog change, written by a transaction's
// commit, followed tick by tick by a subscription, and read from a
// consistent snapshot.
func Example() {
	dir, _ := os.MkdirTemp("", "engine")
	defer os.RemoveAll(dir)
	e, stop := start(dir, nil)
	defer stop()
	ctx := context.Background()

	var t *catalog.Object
	err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		t = &catalog.Object{ID: tx.NextID(), Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: "t",
			Columns: []catalog.ColumnDef{{Name: "x", Type: types.TypeInt8}}}
		return tx.Create(ctx, t)
	})
	if err != nil {
		panic(err)
	}

	// A consumer of changes follows a plan's result (a sink, SUBSCRIBE).
	sub, err := e.Subscribe(ctx, &planner.Get{ID: planner.ObjectID(t.ID), Name: t.Name, Cols: t.PlanColumns()}, engine.FeedOptions{})
	if err != nil {
		panic(err)
	}
	defer e.Unsubscribe(ctx, sub)

	// A transaction's writes commit together in the next tick; Commit
	// returns once the tick is durable and visible.
	w := &engine.WriteSet{Tables: map[uint64][]engine.RowChange{t.ID: {
		{Row: types.Row{types.NewInt8(1)}},
		{Row: types.Row{types.NewInt8(2)}},
	}}}
	if err := e.Commit(ctx, w); err != nil {
		panic(err)
	}

	// The feed starts with progress at its start time; each tick's
	// changes follow, each closed by progress past it.
	changes := 0
	for changes < 2 {
		ticks, err := sub.Next(ctx)
		if err != nil {
			panic(err)
		}
		for _, tick := range ticks {
			for _, u := range tick.Delta {
				fmt.Printf("change: x=%d diff=%+d\n", u.Row[0].Int(), u.Diff)
				changes++
			}
		}
	}

	// A reader sees every object as of one tick.
	snap := e.Snapshot()
	rows, _ := snap.Table(t.ID)
	rows.Scan(func(_ string, row types.Row) bool {
		fmt.Printf("row: x=%d\n", row[0].Int())
		return true
	})
	// Output:
	// change: x=1 diff=+1
	// change: x=2 diff=+1
	// row: x=1
	// row: x=2
}

// counter is a source of the numbers from its resume position on: each
// batch is one number, with the position after it.
type counter struct {
	upTo    int64
	emitted chan int64
}

func (c *counter) Outputs() []sources.Output {
	return []sources.Output{{Name: "n", Columns: []sources.Column{{Name: "n", Type: types.TypeInt8, NotNull: true}}}}
}

func (c *counter) Run(ctx context.Context, resume map[string][]byte, sink sources.Sink) error {
	next := int64(1)
	if pos, ok := resume["0"]; ok {
		next = int64(binary.BigEndian.Uint64(pos))
	}
	sink.Status(sources.Running, "")
	for ; next <= c.upTo; next++ {
		b := &sources.Batch{
			Changes:  [][]sources.Change{{{Row: types.Row{types.NewInt8(next)}, Diff: 1}}},
			Progress: map[string][]byte{"0": binary.BigEndian.AppendUint64(nil, uint64(next+1))},
		}
		// Emit returns once the rows and the position are committed
		// together, in one tick.
		if err := sink.Emit(ctx, b); err != nil {
			return err
		}
		c.emitted <- next
	}
	<-ctx.Done()
	return nil
}

// binder rebuilds the counter on start, as package sql rebuilds a source
// from its CREATE SOURCE statement.
type binder struct{ src *counter }

func (b binder) PlanView(*catalog.Catalog, *catalog.Object) (planner.Node, error) {
	return nil, fmt.Errorf("no views here")
}

func (b binder) OpenSource(*catalog.Catalog, *catalog.Object) (sources.Source, error) {
	return b.src, nil
}

func (b binder) OpenSink(*catalog.Catalog, *catalog.Object, string) (sinks.Sink, error) {
	return nil, errors.New("no sinks in this example")
}

// A source hands the engine batches of changes with the positions they
// read up to, and the engine commits both in one tick: after a restart
// the source resumes from the position stored with the last rows it
// committed, so that no row is lost or ingested twice.
func ExampleDDL_CreateSource() {
	dir, _ := os.MkdirTemp("", "engine")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	src := &counter{upTo: 2, emitted: make(chan int64, 10)}
	e, stop := start(dir, binder{src})
	err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		return tx.CreateSource(ctx, engine.SourceDef{Name: "numbers", SQL: "CREATE SOURCE numbers …", Own: true}, src)
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("ingested", <-src.emitted, <-src.emitted)
	stop()

	src.upTo = 4
	e, stop = start(dir, binder{src})
	defer stop()
	fmt.Println("after the restart", <-src.emitted, <-src.emitted)
	numbers, _ := e.Snapshot().Catalog().Lookup("", "numbers")
	rows, _ := e.Snapshot().Table(numbers.ID)
	n := 0
	rows.Scan(func(string, types.Row) bool { n++; return true })
	fmt.Println("rows", n)
	// Output:
	// ingested 1 2
	// after the restart 3 4
	// rows 4
}
