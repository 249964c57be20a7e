package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// startClocked runs an engine on a manual clock.
func startClocked(t *testing.T, clk engine.Clock) *engine.Engine {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := engine.Open(ctx, engine.Config{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-ran
		e.Close()
	})
	return e
}

// createEvents creates events(id int8, ts timestamptz), with a watermark
// lagging five seconds when wm is set.
func createEvents(t *testing.T, e *engine.Engine, wm *catalog.WatermarkDef, late string) *catalog.Object {
	t.Helper()
	var obj *catalog.Object
	err := e.RunDDL(context.Background(), func(ctx context.Context, tx *engine.DDL) error {
		obj = &catalog.Object{ID: tx.NextID(), Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: "events",
			Columns:   []catalog.ColumnDef{{Name: "id", Type: types.TypeInt8}, {Name: "ts", Type: types.TypeTimestampTZ}},
			Watermark: wm, LateData: late}
		if err := tx.Create(ctx, obj); err != nil {
			return err
		}
		if late != catalog.LateDeadLetter {
			return nil
		}
		errs := &catalog.Object{ID: tx.NextID(), Kind: catalog.KindSubsource, Schema: catalog.DefaultSchema, Name: "events_errors",
			Columns: catalog.ErrorsColumns, Source: obj.ID, Role: "errors", Appends: true}
		return tx.Create(ctx, errs)
	})
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func insert(t *testing.T, e *engine.Engine, obj *catalog.Object, rows ...types.Row) error {
	t.Helper()
	var changes []engine.RowChange
	for _, r := range rows {
		changes = append(changes, engine.RowChange{Row: r})
	}
	return e.Commit(context.Background(), &engine.WriteSet{Tables: map[uint64][]engine.RowChange{obj.ID: changes}})
}

func event(id int64, ts time.Time) types.Row {
	return types.Row{types.NewInt8(id), types.NewTimestampTZ(ts.UnixMicro())}
}

// within returns mz_now() <= #1 + d: the rows of the last d.
func within(t *testing.T, d time.Duration) scalar.Expr {
	t.Helper()
	iv := scalar.NewConst(types.NewInterval(types.IntervalValue{Micros: d.Microseconds()}), types.TypeInterval)
	ts := &scalar.ColRef{Idx: 1, Typ: types.TypeTimestampTZ}
	plus, _, err := scalar.ResolveBinaryOp("+", types.TypeTimestampTZ, types.TypeInterval)
	if err != nil {
		t.Fatal(err)
	}
	le, _, err := scalar.ResolveBinaryOp("<=", types.TypeTimestampTZ, types.TypeTimestampTZ)
	if err != nil {
		t.Fatal(err)
	}
	now, _, err := scalar.ResolveFunc(scalar.MzNowName, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &scalar.Call{Fn: le, Args: []scalar.Expr{&scalar.Call{Fn: now}, &scalar.Call{Fn: plus, Args: []scalar.Expr{ts, iv}}}}
}

func fmtTicks(ticks []engine.Tick) string {
	var parts []string
	for _, tk := range ticks {
		for _, u := range tk.Delta {
			parts = append(parts, fmt.Sprintf("%+d:%d", u.Diff, u.Row[0].Int()))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// TestTemporalFilterRetractsWithTime follows a subscription of the last
// ten seconds of events while a manual clock moves: rows leave when their
// time comes, with no write, by a tick the engine runs on its own (the
// first) or that Tick waits for (the second).
func TestTemporalFilterRetractsWithTime(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	clk := engine.NewManualClock(t0)
	e := startClocked(t, clk)
	obj := createEvents(t, e, nil, "")
	ctx := context.Background()
	get := &planner.Get{ID: planner.ObjectID(obj.ID), Name: obj.Name, Cols: obj.PlanColumns()}
	sub, err := e.Subscribe(ctx, &planner.Filter{Input: get, Pred: within(t, 10*time.Second)}, engine.FeedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Unsubscribe(ctx, sub)
	if err := insert(t, e, obj, event(1, t0.Add(-5*time.Second)), event(2, t0.Add(-20*time.Second)), event(3, t0)); err != nil {
		t.Fatal(err)
	}
	next := func() string {
		ticks, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return fmtTicks(ticks)
	}
	if got := next(); got != "+1:1 +1:3" {
		t.Fatalf("inserted: %s", got)
	}
	// Row 1 is valid up to t0+5s inclusive: the engine's own tick at
	// t0+5.001s retracts it.
	clk.Advance(5*time.Second + time.Millisecond)
	if got := next(); got != "-1:1" {
		t.Fatalf("after 5s: %s", got)
	}
	clk.Advance(5 * time.Second)
	if err := e.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != "-1:3" {
		t.Fatalf("after 10s: %s", got)
	}
	if sub.Ready() {
		t.Fatalf("nothing else should be due")
	}
}

// TestLateRows inserts events out of order past a watermark of five
// seconds: the late one is counted and dropped (or routed to the errors
// relation), and changing a row behind the watermark fails.
func TestLateRows(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, policy := range []string{catalog.LateDrop, catalog.LateDeadLetter} {
		t.Run(policy, func(t *testing.T) {
			e := startClocked(t, engine.NewManualClock(t0))
			obj := createEvents(t, e, &catalog.WatermarkDef{Column: 1, Lag: 5_000_000}, policy)
			if err := insert(t, e, obj, event(1, t0), event(2, t0.Add(10*time.Second)), event(3, t0.Add(4*time.Second)), event(4, t0.Add(6*time.Second))); err != nil {
				t.Fatal(err)
			}
			snap := e.Snapshot()
			rows, _ := snap.Table(obj.ID)
			var ids []int64
			rows.Scan(func(_ string, r types.Row) bool {
				ids = append(ids, r[0].Int())
				return true
			})
			if fmt.Sprint(ids) != "[1 2 4]" {
				t.Errorf("rows %v, want 1, 2 and 4 (3 is behind the watermark 5s)", ids)
			}
			if n, ok := e.LateRows(obj.ID); !ok || n != 1 {
				t.Errorf("late rows %d %v, want 1", n, ok)
			}
			errs, ok := snap.Catalog().Lookup(catalog.DefaultSchema, "events_errors")
			if ok != (policy == catalog.LateDeadLetter) {
				t.Fatalf("errors relation exists: %v", ok)
			}
			if ok {
				er, _ := snap.Table(errs.ID)
				var got []string
				er.Scan(func(_ string, r types.Row) bool {
					got = append(got, r[4].Str())
					return true
				})
				if len(got) != 1 || !strings.HasPrefix(got[0], "late: ts 2024-01-01 12:00:04+00 is behind the watermark 2024-01-01 12:00:05+00") {
					t.Errorf("errors relation holds %q", got)
				}
			}
			// Deleting row 1 (at t0, behind the watermark) fails.
			var key, val string
			rows.Scan(func(k string, r types.Row) bool {
				if r[0].Int() == 1 {
					key, val = k, string(types.AppendRow(nil, r))
				}
				return true
			})
			err := e.Commit(context.Background(), &engine.WriteSet{Tables: map[uint64][]engine.RowChange{obj.ID: {{Key: key, Existed: true, Expect: val}}}})
			var pe *pgerr.Error
			if !errors.As(err, &pe) || pe.Code != pgerr.ObjectNotInPrerequisiteState {
				t.Errorf("deleting a row behind the watermark: %v", err)
			}
		})
	}
}
