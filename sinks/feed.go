package sinks

import (
	"context"
	"errors"

	"github.com/streamdb/streamdb/types"
)

// Column is one column of the relation a sink exports.
type Column struct {
	Name string
	Type types.Type
}

// Change is one row's change in a tick: Diff copies of Row inserted
// (Diff > 0) or deleted (Diff < 0). Diff is never 0.
type Change struct {
	Row  types.Row
	Diff int64
}

// Tick is what the relation did at one logical time.
type Tick struct {
	// Time is the tick's logical timestamp in milliseconds. Times
	// strictly increase along a feed.
	Time uint64
	// Changes are the tick's changes, consolidated: no row appears
	// twice. An update is its old row with -1 and its new row with +1.
	// When Snapshot is set they are instead the whole relation at Time,
	// every row with its (positive) multiplicity.
	Changes []Change
	// Snapshot marks a tick that carries the relation's contents rather
	// than its changes since the previous tick. Only a feed's first tick
	// can be a snapshot.
	Snapshot bool
}

// Start is where a sink asks its feed to begin.
type Start struct {
	// Resume is set when the sink has committed before: After is then
	// the time of the last tick it committed externally, and the feed
	// delivers the ticks after it. When the engine no longer holds that
	// history, it delivers a snapshot at the current time instead, and
	// the sink writes the difference between what it committed and the
	// snapshot.
	Resume bool
	After  uint64
	// Snapshot, on a first start (Resume unset), asks for the
	// relation's contents at the current time as the first tick (WITH
	// (SNAPSHOT = true)). Without it the first tick is an empty,
	// non-snapshot tick at the sink's creation (or the current time,
	// for an engine that keeps no history from then): the sink records
	// that time as its start, and the ticks after it follow.
	Snapshot bool
}

// Feed delivers one relation's ticks to one sink, in time order.
type Feed interface {
	// Next returns the next tick, waiting for one. It fails when ctx
	// ends, when the relation is dropped, or when the engine stops.
	Next(ctx context.Context) (Tick, error)
	// Pending reports whether Next would return at once. A sink uses it
	// to write the ticks already waiting in one external transaction.
	Pending() bool
	// Committed tells the engine that the sink has committed every tick
	// up to time externally: a restart resumes after it, so the engine
	// may forget the history up to it.
	Committed(time uint64)
	// Close releases the feed; the engine stops keeping ticks for it.
	Close()
}

// Engine is the engine's side of one running sink.
type Engine interface {
	// Open starts the sink's feed at start. A sink opens its feed once
	// per Run, after it has read back its externally committed progress.
	Open(ctx context.Context, start Start) (Feed, error)
	// Status reports the sink's state for SHOW SINKS; reason explains a
	// stall.
	Status(s State, reason string)
}

// State is the lifecycle state a sink reports.
type State string

// Sink states.
const (
	Starting State = "starting"
	Running  State = "running"
	Stalled  State = "stalled"
)

// ErrFenced is what Run returns when another instance of the sink (the
// same durable id) took over: the engine must not restart a fenced sink,
// which would fence the other instance back.
var ErrFenced = errors.New("another instance of the sink took over its transactional id")

// Sink is a running external output.
type Sink interface {
	// Run writes the relation's changes until ctx ends: it reads its
	// committed progress, opens its feed through engine, and writes
	// every tick exactly once. It retries transient external failures
	// itself, reporting Stalled meanwhile, and returns nil when ctx
	// ends, or an error that retrying cannot fix (the feed failed,
	// another instance of the sink took over: ErrFenced).
	Run(ctx context.Context, engine Engine) error
}
