package sql

import (
	"fmt"
	"slices"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// subscribeShape lays a subscription's changes out as rows in
// Materialize's shapes:
//
//	plain     mz_timestamp [mz_progressed] mz_diff  col…
//	UPSERT    mz_timestamp [mz_progressed] mz_state key… value…
//	DEBEZIUM  mz_timestamp [mz_progressed] mz_state key… before_value… after_value…
//
// With PROGRESS, a progress row (mz_progressed true, every other column
// NULL) says that no row before its mz_timestamp will follow; the first
// row is one at the subscription's AS OF.
//
// Under an envelope each key's changes in a tick become one row: UPSERT
// writes mz_state upsert with the key's new value, or delete with NULL
// values when the tick only deleted it; DEBEZIUM writes insert, upsert or
// delete with the value before and after. A key that gained or lost more
// than one row in a tick is not a key: its row is key_violation with NULL
// values, as in Materialize.
type subscribeShape struct {
	envelope parser.EnvelopeKind // 0 for none
	progress bool
	key      []int // the KEY columns, under an envelope
	vals     []int // the other columns, in order
	width    int
	// ts is the mz_timestamp of the last tick rendered, as a Datum.
	ts    types.Datum
	tsVal uint64
}

func newSubscribeShape(cols []planner.Column, env *parser.SubscribeEnvelope, progress bool) (subscribeShape, []pgwire.Column, error) {
	sh := subscribeShape{progress: progress}
	out := []pgwire.Column{{Name: "mz_timestamp", Type: types.TypeNumeric}}
	if progress {
		out = append(out, pgwire.Column{Name: "mz_progressed", Type: types.TypeBool})
	}
	if env == nil {
		out = append(out, pgwire.Column{Name: "mz_diff", Type: types.TypeInt8})
		out = append(out, resultColumns(cols)...)
		sh.width = len(out)
		return sh, out, nil
	}
	sh.envelope = env.Kind
	inKey := make([]bool, len(cols))
	for _, k := range env.Key {
		i := slices.IndexFunc(cols, func(c planner.Column) bool { return c.Name == k.Value })
		if i < 0 {
			return sh, nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", k.Value).WithPosition(int(k.Pos) + 1)
		}
		if inKey[i] {
			return sh, nil, pgerr.New(pgerr.DuplicateColumn, "column %q appears twice in KEY", k.Value)
		}
		inKey[i] = true
		sh.key = append(sh.key, i)
	}
	for i := range cols {
		if !inKey[i] {
			sh.vals = append(sh.vals, i)
		}
	}
	out = append(out, pgwire.Column{Name: "mz_state", Type: types.TypeText})
	for _, k := range sh.key {
		out = append(out, pgwire.Column{Name: cols[k].Name, Type: cols[k].Type})
	}
	prefixes := []string{""}
	if env.Kind == parser.EnvelopeDebezium {
		prefixes = []string{"before_", "after_"}
	}
	for _, p := range prefixes {
		for _, v := range sh.vals {
			out = append(out, pgwire.Column{Name: p + cols[v].Name, Type: cols[v].Type})
		}
	}
	sh.width = len(out)
	return sh, out, nil
}

// signature says what the shape lays out, so that two feeds with the
// same signature (of the same object) render a tick alike.
func (sh *subscribeShape) signature() string {
	return fmt.Sprintf("shape %d %t %v %v %d", sh.envelope, sh.progress, sh.key, sh.vals, sh.width)
}

// appendTick appends the rows of one tick of the feed.
func (sh *subscribeShape) appendTick(rows []types.Row, t engine.Tick) []types.Row {
	if t.Progress && !sh.progress {
		return rows
	}
	if sh.tsVal != t.TS || sh.ts.IsNull() {
		sh.ts, sh.tsVal = types.NewNumeric(apd.New(int64(t.TS), 0)), t.TS
	}
	ts := sh.ts
	if t.Progress {
		row := make(types.Row, sh.width)
		row[0], row[1] = ts, types.DTrue
		return append(rows, row)
	}
	if sh.envelope == 0 {
		// One allocation for the tick's rows.
		slab := make([]types.Datum, 0, len(t.Delta)*sh.width)
		for _, u := range t.Delta {
			start := len(slab)
			slab = append(slab, ts)
			if sh.progress {
				slab = append(slab, types.DFalse)
			}
			slab = append(slab, types.NewInt8(u.Diff))
			slab = append(slab, u.Row...)
			rows = append(rows, slab[start:len(slab):len(slab)])
		}
		return rows
	}
	delta := slices.Clone(t.Delta)
	slices.SortStableFunc(delta, func(a, b dataflow.Update) int { return sh.compareKeys(a.Row, b.Row) })
	for i := 0; i < len(delta); {
		j := i + 1
		for j < len(delta) && sh.compareKeys(delta[i].Row, delta[j].Row) == 0 {
			j++
		}
		rows = append(rows, sh.keyRow(ts, delta[i:j]))
		i = j
	}
	return rows
}

// compareKeys orders rows by their KEY columns.
func (sh *subscribeShape) compareKeys(a, b types.Row) int {
	for _, k := range sh.key {
		if c := types.Compare(a[k], b[k]); c != 0 {
			return c
		}
	}
	return 0
}

// keyRow is the envelope's row for one key's changes in a tick.
func (sh *subscribeShape) keyRow(ts types.Datum, changes []dataflow.Update) types.Row {
	var before, after types.Row
	var deleted, inserted int64
	for _, u := range changes {
		if u.Diff < 0 {
			before, deleted = u.Row, deleted-u.Diff
		} else {
			after, inserted = u.Row, inserted+u.Diff
		}
	}
	state := "upsert"
	switch {
	case inserted > 1 || deleted > 1:
		state, before, after = "key_violation", nil, nil
	case inserted == 0:
		state, after = "delete", nil
	case deleted == 0 && sh.envelope == parser.EnvelopeDebezium:
		state = "insert"
	}
	if sh.envelope == parser.EnvelopeUpsert {
		before = nil
	}
	row := make(types.Row, 0, sh.width)
	row = append(row, ts)
	if sh.progress {
		row = append(row, types.DFalse)
	}
	row = append(row, types.NewText(state))
	for _, k := range sh.key {
		row = append(row, changes[0].Row[k])
	}
	if sh.envelope == parser.EnvelopeDebezium {
		row = appendValues(row, before, sh.vals)
	}
	return appendValues(row, after, sh.vals)
}

// appendValues appends the value columns of r, NULLs when r is nil.
func appendValues(row, r types.Row, vals []int) types.Row {
	for _, v := range vals {
		if r == nil {
			row = append(row, types.Null)
		} else {
			row = append(row, r[v])
		}
	}
	return row
}
