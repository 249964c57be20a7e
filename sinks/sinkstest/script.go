// Package sinkstest provides a scripted stand-in for the engine, for
// testing sinks without the SQL layer: a Script holds a relation's
// history as a list of ticks and serves it to a sink through the
// sinks.Engine contract, replays included.
package sinkstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/types"
)

// ErrStopped is what a feed's Next returns after Script.Stop.
var ErrStopped = errors.New("sinkstest: script stopped")

// Script is a sinks.Engine over a scripted relation. Tests append ticks
// (the relation's history grows as an engine's would), forget old
// history with Compact (so that a sink resuming from before it gets a
// snapshot, as from an engine that no longer holds the ticks), and read
// the statuses the sink reported. It is safe for concurrent use; several
// sinks may run against one script, each with its own feed.
type Script struct {
	mu   sync.Mutex
	cond *sync.Cond
	// ticks is the history, times strictly increasing; ticks[0:base]
	// are forgotten (compacted into state).
	ticks []sinks.Tick
	base  int
	// compacted is the relation at the time of the last forgotten tick.
	compacted map[string]sinks.Change
	// now is the current time: the last tick's, or Start's argument
	// while there is none.
	now     uint64
	stopErr error

	starts    []sinks.Start
	statuses  []Status
	committed []uint64
}

// Status is one state a sink reported.
type Status struct {
	State  sinks.State
	Reason string
}

var _ sinks.Engine = (*Script)(nil)

// New returns a script whose relation is empty at time start.
func New(start uint64) *Script {
	s := &Script{now: start, compacted: map[string]sinks.Change{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Append adds a tick to the relation's history. Its time must be after
// the current time, its changes consolidated.
func (s *Script) Append(t sinks.Tick) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.Time <= s.now {
		panic(fmt.Sprintf("sinkstest: tick at %d is not after %d", t.Time, s.now))
	}
	t.Snapshot = false
	s.ticks = append(s.ticks, t)
	s.now = t.Time
	s.cond.Broadcast()
}

// Now returns the current time.
func (s *Script) Now() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Compact forgets the history at or before time t: a feed resuming
// after an earlier time starts with a snapshot.
func (s *Script) Compact(t uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.base < len(s.ticks) && s.ticks[s.base].Time <= t {
		apply(s.compacted, s.ticks[s.base].Changes)
		s.base++
	}
}

// Contents returns the relation at the current time, rows in order.
func (s *Script) Contents() []sinks.Change {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.contentsLocked()
}

func (s *Script) contentsLocked() []sinks.Change {
	state := make(map[string]sinks.Change, len(s.compacted))
	for k, c := range s.compacted {
		state[k] = c
	}
	for _, t := range s.ticks[s.base:] {
		apply(state, t.Changes)
	}
	out := make([]sinks.Change, 0, len(state))
	for _, c := range state {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b sinks.Change) int { return types.CompareRows(a.Row, b.Row) })
	return out
}

// apply folds changes into a multiset keyed by each row's exact value
// encoding.
func apply(state map[string]sinks.Change, changes []sinks.Change) {
	var buf []byte
	for _, c := range changes {
		buf = types.AppendRow(buf[:0], c.Row)
		cur := state[string(buf)]
		cur.Row = c.Row
		cur.Diff += c.Diff
		switch {
		case cur.Diff == 0:
			delete(state, string(buf))
		case cur.Diff < 0:
			panic(fmt.Sprintf("sinkstest: row %v deleted more often than inserted", c.Row))
		default:
			state[string(buf)] = cur
		}
	}
}

// Stop makes every feed's Next fail with ErrStopped, as when the
// relation is dropped.
func (s *Script) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopErr = ErrStopped
	s.cond.Broadcast()
}

// Starts returns the starts sinks asked for, in order.
func (s *Script) Starts() []sinks.Start {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.starts)
}

// Committed returns the times sinks reported committed through their
// feeds (sinks.Feed.Committed), in order.
func (s *Script) Committed() []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.committed)
}

// Statuses returns the statuses sinks reported, in order.
func (s *Script) Statuses() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.statuses)
}

// Status implements sinks.Engine.
func (s *Script) Status(st sinks.State, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses = append(s.statuses, Status{st, reason})
	s.cond.Broadcast()
}

// WaitStatus waits until a sink reports state st after the first n
// statuses and returns its reason and the number of statuses then.
func (s *Script) WaitStatus(ctx context.Context, n int, st sinks.State) (string, int, error) {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.cond.Broadcast()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for i := n; i < len(s.statuses); i++ {
			if s.statuses[i].State == st {
				return s.statuses[i].Reason, i + 1, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return "", len(s.statuses), fmt.Errorf("waiting for status %s (seen %v): %w", st, s.statuses, err)
		}
		s.cond.Wait()
	}
}

// Open implements sinks.Engine: it serves the ticks after start.After
// when the script still holds them, else a snapshot at the current time.
func (s *Script) Open(_ context.Context, start sinks.Start) (sinks.Feed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts = append(s.starts, start)
	f := &feed{s: s}
	switch {
	case start.Resume && start.After > s.now:
		return nil, fmt.Errorf("sinkstest: resume after %d, which is in the future (now %d)", start.After, s.now)
	case start.Resume && (s.base == 0 || start.After >= s.ticks[s.base-1].Time):
		f.next = s.base
		for f.next < len(s.ticks) && s.ticks[f.next].Time <= start.After {
			f.next++
		}
		return f, nil
	case start.Resume || start.Snapshot:
		f.first = &sinks.Tick{Time: s.now, Changes: s.contentsLocked(), Snapshot: true}
	default:
		f.first = &sinks.Tick{Time: s.now}
	}
	f.next = len(s.ticks)
	return f, nil
}

// feed is one sink's position in a script.
type feed struct {
	s *Script
	// first is the tick served before the history: a snapshot or the
	// empty starting tick.
	first *sinks.Tick
	// next indexes the next tick of the history to serve.
	next   int
	closed bool
}

func (f *feed) Next(ctx context.Context) (sinks.Tick, error) {
	s := f.s
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.cond.Broadcast()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		switch {
		case f.closed:
			return sinks.Tick{}, errors.New("sinkstest: feed closed")
		case s.stopErr != nil:
			return sinks.Tick{}, s.stopErr
		case f.first != nil:
			t := *f.first
			f.first = nil
			return t, nil
		case f.next < s.base:
			return sinks.Tick{}, fmt.Errorf("sinkstest: the ticks this feed needs were compacted")
		case f.next < len(s.ticks):
			t := s.ticks[f.next]
			f.next++
			return t, nil
		}
		if err := ctx.Err(); err != nil {
			return sinks.Tick{}, err
		}
		s.cond.Wait()
	}
}

func (f *feed) Pending() bool {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	return f.first != nil || f.next < len(f.s.ticks) || f.s.stopErr != nil
}

// Committed records the time a sink committed up to (see Script.Committed).
func (f *feed) Committed(t uint64) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.s.committed = append(f.s.committed, t)
}

func (f *feed) Close() {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.closed = true
}
