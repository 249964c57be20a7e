package loadgen

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// counter is COUNTER: tick n emits n+1, so the collection after n ticks is
// 1..n, or only its last MaxCardinality values:
//
//	MAX CARDINALITY 2, ticks:  1      2      3          4
//	changes:                   +1     +2     +3 -1      +4 -2
//	collection:                {1}    {1,2}  {2,3}      {3,4}
type counter struct {
	clk      clock
	interval time.Duration
	maxCard  int64
	limit    int64
}

var _ sources.Source = (*counter)(nil)

func newCounter(opts Options, clk clock) *counter {
	return &counter{
		clk:      clk,
		interval: opts.tickInterval(time.Second),
		maxCard:  opts.MaxCardinality,
		limit:    opts.MaxEvents,
	}
}

// counterOutputs is Materialize's counter relation.
func counterOutputs() []sources.Output {
	return []sources.Output{{
		Name:    "counter",
		Columns: []sources.Column{{Name: "counter", Type: types.TypeInt8, NotNull: true}},
	}}
}

// Outputs says the relation retracts when MAX CARDINALITY bounds it.
func (c *counter) Outputs() []sources.Output {
	outs := counterOutputs()
	outs[0].Retracts = c.maxCard > 0
	return outs
}

func (c *counter) Run(ctx context.Context, resume map[string][]byte, sink sources.Sink) error {
	start, err := decodePosition(resume)
	if err != nil {
		return err
	}
	return runTicks(ctx, c.clk, c.interval, 0, start, c.limit, sink, c.tick)
}

// tick inserts n+1 and, once the collection is full, retracts the value
// that falls out of the window.
func (c *counter) tick(n int64, _ time.Time) [][]sources.Change {
	v := n + 1
	rows := make(types.Row, 2)
	changes := make([]sources.Change, 1, 2)
	rows[0] = types.NewInt8(v)
	changes[0] = sources.Change{Row: rows[0:1:1], Diff: 1}
	if c.maxCard > 0 && v > c.maxCard {
		rows[1] = types.NewInt8(v - c.maxCard)
		changes = append(changes, sources.Change{Row: rows[1:2:2], Diff: -1})
	}
	return [][]sources.Change{changes}
}
