package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// scripted is a source whose batches the test hands it one at a time:
// Run emits each and reports back once the engine has committed it.
type scripted struct {
	outputs []sources.Output
	batches chan *sources.Batch
	emitted chan error
	// resumed receives the positions each Run started from.
	resumed chan map[string][]byte
	// ran is closed when Run returns.
	ran chan struct{}
}

func newScripted(outputs []sources.Output) *scripted {
	return &scripted{outputs: outputs, batches: make(chan *sources.Batch), emitted: make(chan error),
		resumed: make(chan map[string][]byte, 1), ran: make(chan struct{})}
}

func (s *scripted) Outputs() []sources.Output { return s.outputs }

func (s *scripted) Run(ctx context.Context, resume map[string][]byte, sink sources.Sink) error {
	defer close(s.ran)
	s.resumed <- resume
	sink.Status(sources.Snapshotting, "1 of 2 tables")
	for {
		select {
		case <-ctx.Done():
			return nil
		case b := <-s.batches:
			err := sink.Emit(ctx, b)
			sink.Status(sources.Running, "")
			s.emitted <- err
		}
	}
}

// emit hands b to the source and waits until the engine took it.
func (s *scripted) emit(t *testing.T, b *sources.Batch) {
	t.Helper()
	s.batches <- b
	if err := <-s.emitted; err != nil {
		t.Fatalf("emit: %v", err)
	}
}

// schemaBinder rebuilds the test's objects on start: the scripted
// source, and views that read a relation whole, bound against the
// catalog as of their creation as package sql binds them.
type schemaBinder struct{ src sources.Source }

func (b schemaBinder) PlanView(cat *catalog.Catalog, o *catalog.Object) (planner.Node, error) {
	on, _ := cat.AsOf(o.ID).ByID(o.DependsOn[0])
	return &planner.Get{ID: planner.ObjectID(on.ID), Name: on.Name, Cols: on.PlanColumns()}, nil
}

func (b schemaBinder) OpenSource(*catalog.Catalog, *catalog.Object) (sources.Source, error) {
	return b.src, nil
}

func (b schemaBinder) OpenSink(*catalog.Catalog, *catalog.Object, string) (sinks.Sink, error) {
	return nil, errors.New("no sinks in these tests")
}

func int8s(vals ...int64) types.Row {
	r := make(types.Row, len(vals))
	for i, v := range vals {
		r[i] = types.NewInt8(v)
	}
	return r
}

// rowsText renders rows sorted, a row as its values joined by commas.
func rowsText(rows []types.Row) string {
	lines := make([]string, len(rows))
	for i, r := range rows {
		vals := make([]string, len(r))
		for j, d := range r {
			if d.IsNull() {
				vals[j] = "null"
			} else {
				vals[j] = fmt.Sprint(d.Int())
			}
		}
		lines[i] = strings.Join(vals, ",")
	}
	slices.Sort(lines)
	return strings.Join(lines, " ")
}

func tableRows(t *testing.T, e *engine.Engine, name string) string {
	t.Helper()
	snap := e.Snapshot()
	o, ok := snap.Catalog().Lookup("", name)
	if !ok {
		t.Fatalf("no relation %s", name)
	}
	ts, _ := snap.Table(o.ID)
	var rows []types.Row
	if err := ts.Scan(func(_ string, r types.Row) bool { rows = append(rows, r); return true }); err != nil {
		t.Fatal(err)
	}
	return rowsText(rows)
}

func viewRows(t *testing.T, e *engine.Engine, name string) string {
	t.Helper()
	snap := e.Snapshot()
	o, ok := snap.Catalog().Lookup("", name)
	if !ok {
		t.Fatalf("no view %s", name)
	}
	vs, _ := snap.View(o.ID)
	rows, err := vs.Rows()
	if err != nil {
		t.Fatal(err)
	}
	return rowsText(rows)
}

// TestSourceSchemaChanges drives a source's batches through AddColumns,
// Truncate, OldKey and Unchanged: the relations change as package sources
// documents, in one tick with the batch's changes; a view and a
// subscription defined before a column was added keep their columns and
// see only the batch's changes; an index is rebuilt over the wider rows;
// and a restart reads everything back the same, the view bound as it was
// when it was created.
func TestSourceSchemaChanges(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	outputs := []sources.Output{
		{Name: "a", Columns: []sources.Column{{Name: "id", Type: types.TypeInt8, NotNull: true}, {Name: "v", Type: types.TypeInt8}}, Key: []int{0}},
		{Name: "b", Columns: []sources.Column{{Name: "x", Type: types.TypeInt8}}, Retracts: true},
	}
	src := newScripted(outputs)
	e, stop := start(dir, schemaBinder{src})
	defer func() { stop() }()

	var a, mv, idx *catalog.Object
	err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		if err := tx.CreateSource(ctx, engine.SourceDef{Name: "s", SQL: "CREATE SOURCE s …", Relations: []string{"a", "b"}}, src); err != nil {
			return err
		}
		a, _ = tx.Catalog().Lookup("", "a")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		mv = &catalog.Object{ID: tx.NextID(), Kind: catalog.KindMaterializedView, Schema: catalog.DefaultSchema, Name: "mv",
			Columns: a.Columns, DependsOn: []uint64{a.ID}, SQL: "CREATE MATERIALIZED VIEW mv AS SELECT * FROM a",
			Plan: &planner.Get{ID: planner.ObjectID(a.ID), Name: "a", Cols: a.PlanColumns()}}
		if err := tx.Create(ctx, mv); err != nil {
			return err
		}
		idx = &catalog.Object{ID: tx.NextID(), Kind: catalog.KindIndex, Schema: catalog.DefaultSchema, Name: "a_v", On: a.ID, KeyCols: []int{1},
			Columns: []catalog.ColumnDef{a.Columns[1]}}
		return tx.Create(ctx, idx)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := <-src.resumed; len(got) != 0 {
		t.Fatalf("first start resumed from %v", got)
	}
	sub, err := e.Subscribe(ctx, &planner.Get{ID: planner.ObjectID(a.ID), Name: "a", Cols: a.PlanColumns()}, engine.FeedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, e, "s", "snapshotting: 1 of 2 tables")

	src.emit(t, &sources.Batch{Changes: [][]sources.Change{
		{{Key: int8s(1), Row: int8s(1, 10)}, {Key: int8s(2), Row: int8s(2, 20)}},
		{{Row: int8s(5), Diff: 1}, {Row: int8s(6), Diff: 1}},
	}, Progress: map[string][]byte{"p": []byte("1")}})
	waitStatus(t, e, "s", "running")
	nextTick(t, sub)

	// A column is added, existing rows read its fill, and the batch's
	// rows have it; the view and the subscription keep two columns.
	src.emit(t, &sources.Batch{
		AddColumns: []sources.AddedColumn{{Output: 0, Column: sources.Column{Name: "w", Type: types.TypeInt8}, Fill: types.NewInt8(7)}},
		Changes:    [][]sources.Change{{{Key: int8s(3), Row: int8s(3, 30, 9)}}, nil},
	})
	if got, want := tableRows(t, e, "a"), "1,10,7 2,20,7 3,30,9"; got != want {
		t.Errorf("a after ADD COLUMN = %s, want %s", got, want)
	}
	if got, want := viewRows(t, e, "mv"), "1,10 2,20 3,30"; got != want {
		t.Errorf("mv after ADD COLUMN = %s, want %s", got, want)
	}
	if got, want := rowsText(nextTick(t, sub)), "3,30"; got != want {
		t.Errorf("subscription after ADD COLUMN = %s, want %s (only the batch's change)", got, want)
	}
	if got, want := viewRows(t, e, "a_v"), "1,10,7 2,20,7 3,30,9"; got != want {
		t.Errorf("index after ADD COLUMN = %s, want %s", got, want)
	}
	cat := e.Snapshot().Catalog()
	wide, _ := cat.Lookup("", "a")
	if len(wide.Columns) != 3 || wide.Columns[2].Name != "w" || wide.Columns[2].Since <= idx.ID {
		t.Fatalf("catalog entry of a after ADD COLUMN: %+v", wide.Columns)
	}
	if n := catalog.VisibleColumns(wide, mv.ID); n != 2 {
		t.Errorf("mv sees %d columns of a, want 2", n)
	}

	// Truncate empties b before the batch's own rows; a key update moves
	// a row, and an unchanged column comes from the row it replaces.
	src.emit(t, &sources.Batch{
		Truncate: []int{1},
		Changes: [][]sources.Change{
			{
				{Key: int8s(10), OldKey: int8s(1), Row: types.Row{types.NewInt8(10), types.Null, types.NewInt8(8)}, Unchanged: []int{1}},
				{Key: int8s(2), Row: types.Row{types.NewInt8(2), types.NewInt8(21), types.Null}, Unchanged: []int{2}},
				{Key: int8s(99), Row: types.Row{types.NewInt8(99), types.Null, types.Null}, Unchanged: []int{1}},
				{Key: int8s(4), OldKey: int8s(4), Row: int8s(4, 40, 4)},
				{Key: int8s(3)},
			},
			{{Row: int8s(7), Diff: 1}},
		},
		DeadLetters: []sources.DeadLetter{{Partition: "a", Offset: 3, Err: "bad value"}},
	})
	if got, want := tableRows(t, e, "a"), "10,10,8 2,21,7 4,40,4"; got != want {
		t.Errorf("a after key update and unchanged columns = %s, want %s", got, want)
	}
	if got, want := tableRows(t, e, "b"), "7"; got != want {
		t.Errorf("b after TRUNCATE = %s, want %s", got, want)
	}
	if got, want := viewRows(t, e, "mv"), "10,10 2,21 4,40"; got != want {
		t.Errorf("mv = %s, want %s", got, want)
	}
	if got, want := rowsText(nextTick(t, sub)), "10,10 2,21 4,40 1,10 2,20 3,30"; !sameRows(got, want) {
		t.Errorf("subscription = %s, want %s", got, want)
	}
	if got := tableRows(t, e, "s_errors"); got == "" {
		t.Error("the dead letter is missing")
	}
	if err := e.Unsubscribe(ctx, sub); err != nil {
		t.Fatal(err)
	}

	stop()
	src = newScripted(outputs)
	e, stop = start(dir, schemaBinder{src})
	<-src.resumed
	if got, want := tableRows(t, e, "a"), "10,10,8 2,21,7 4,40,4"; got != want {
		t.Errorf("a after the restart = %s, want %s", got, want)
	}
	if got, want := viewRows(t, e, "mv"), "10,10 2,21 4,40"; got != want {
		t.Errorf("mv after the restart = %s, want %s", got, want)
	}
	if got, want := viewRows(t, e, "a_v"), "10,10,8 2,21,7 4,40,4"; got != want {
		t.Errorf("index after the restart = %s, want %s", got, want)
	}
	src.emit(t, &sources.Batch{Changes: [][]sources.Change{{{Key: int8s(5), Row: int8s(5, 50, 5)}}, nil}})
	if got, want := viewRows(t, e, "mv"), "10,10 2,21 4,40 5,50"; got != want {
		t.Errorf("mv after a change after the restart = %s, want %s", got, want)
	}
}

// sameRows compares renderings of updates regardless of order.
func sameRows(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// nextTick returns the rows of a subscription's next tick, retractions
// included.
func nextTick(t *testing.T, sub *engine.Subscription) []types.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ticks, err := sub.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows []types.Row
	for _, tick := range ticks {
		for _, u := range tick.Delta {
			rows = append(rows, u.Row)
		}
	}
	return rows
}

func waitStatus(t *testing.T, e *engine.Engine, source, want string) {
	t.Helper()
	o, _ := e.Snapshot().Catalog().Lookup("", source)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := e.SourceStatus(o.ID)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("source %s is %q, want %q", source, got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestReplaceSource replaces a running source's runtime: the new one
// starts only once the old one's Run has returned, from the positions
// the old one committed last, and a batch the old one emits after the
// replacement is refused.
func TestReplaceSource(t *testing.T) {
	ctx := context.Background()
	outputs := []sources.Output{{Name: "a", Columns: []sources.Column{{Name: "id", Type: types.TypeInt8}}, Key: []int{0}}}
	old := newScripted(outputs)
	e, stop := start(t.TempDir(), schemaBinder{old})
	defer stop()
	var src *catalog.Object
	if err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		if err := tx.CreateSource(ctx, engine.SourceDef{Name: "s", SQL: "CREATE SOURCE s …", Relations: []string{"a"}}, old); err != nil {
			return err
		}
		src, _ = tx.Catalog().Lookup("", "s")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	<-old.resumed
	old.emit(t, &sources.Batch{Changes: [][]sources.Change{{{Key: int8s(1), Row: int8s(1)}}}, Progress: map[string][]byte{"p": []byte("after 1")}})

	next := newScripted(outputs)
	if err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		tx.ReplaceSource(src, next)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	<-old.ran
	resumed := <-next.resumed
	if got := string(resumed["p"]); got != "after 1" {
		t.Fatalf("the new runtime resumed from %q, want %q", got, "after 1")
	}
	next.emit(t, &sources.Batch{Changes: [][]sources.Change{{{Key: int8s(2), Row: int8s(2)}}}})
	if got, want := tableRows(t, e, "a"), "1 2"; got != want {
		t.Errorf("a = %s, want %s", got, want)
	}

	var done <-chan struct{}
	if err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		done = tx.SourceDone(src.ID)
		for _, o := range append(tx.Catalog().Dependents(src.ID), src) {
			tx.Drop(o)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("SourceDone did not close after DROP")
	}
	select {
	case <-next.ran:
	default:
		t.Fatal("SourceDone closed before Run returned")
	}
}
