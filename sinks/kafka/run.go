package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sinks"
	"github.com/twmb/franz-go/pkg/kgo"
)

// violationLogInterval spaces the warnings about a KEY that is not
// unique, which would otherwise repeat every tick.
const violationLogInterval = 10 * time.Second

// runner is one Run of a sink.
type runner struct {
	s     *sink
	eng   sinks.Engine
	feed  sinks.Feed
	conn  *conn
	env   *envelope
	batch *recordBatch

	// committed is the time of the last committed tick, when resumed.
	committed uint64
	resumed   bool
	// lastCommit is when the last transaction committed.
	lastCommit time.Time

	state   sinks.State
	reason  string
	backoff time.Duration

	lastViolationLog time.Time
}

// Run writes the relation's ticks until ctx ends; see sinks.Sink.
//
// It connects (creating the topics, fencing earlier instances, reading
// its progress), opens the feed after its progress, and then writes the
// ticks the feed has ready — at least one, at most MaxTransactionRecords
// records' worth — with their progress record in one transaction, over
// and over. A failure closes the producer and starts over from
// connecting, reporting the sink stalled meanwhile; the ticks of the
// failed transaction are kept and written again unless the new
// connection finds them committed.
func (s *sink) Run(ctx context.Context, eng sinks.Engine) error {
	r := &runner{s: s, eng: eng, env: newEnvelope(&s.cfg), batch: &recordBatch{topic: s.cfg.Topic}}
	r.report(sinks.Starting, "")
	defer r.closeConn()
	if err := r.reconnect(ctx); err != nil {
		return r.exit(ctx, err)
	}
	r.committed, r.resumed = r.conn.committed, r.conn.ok
	start := sinks.Start{Resume: r.resumed, After: r.committed, Snapshot: r.resumed || s.cfg.Snapshot}
	feed, err := eng.Open(ctx, start)
	if err != nil {
		return r.exit(ctx, err)
	}
	defer feed.Close()
	r.feed = feed
	s.log.Info("kafka sink started", "resume", start.Resume, "after", start.After, "snapshot", start.Snapshot)
	r.report(sinks.Running, "")
	for {
		ticks, err := r.gather(ctx, feed)
		if err != nil {
			return r.exit(ctx, err)
		}
		if err := r.write(ctx, ticks); err != nil {
			return r.exit(ctx, err)
		}
	}
}

// exit is Run's result for err: nil once ctx ended, else err.
func (r *runner) exit(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// gather returns the next tick and those already waiting behind it, up
// to MaxTransactionRecords changes.
func (r *runner) gather(ctx context.Context, feed sinks.Feed) ([]sinks.Tick, error) {
	var ticks []sinks.Tick
	n := 0
	for len(ticks) == 0 || n < r.s.cfg.MaxTransactionRecords && feed.Pending() {
		t, err := feed.Next(ctx)
		if err != nil {
			return nil, err
		}
		prev := r.committed
		if len(ticks) > 0 {
			prev = ticks[len(ticks)-1].Time
		}
		// A snapshot may come at the time the sink resumes after (the
		// relation did not change since); other ticks come after it.
		if (r.resumed || len(ticks) > 0) && (t.Time < prev || t.Time == prev && !t.Snapshot) || t.Snapshot && len(ticks) > 0 {
			return nil, fmt.Errorf("kafka sink %s: the feed delivered a tick at %d (snapshot %v) after %d", r.s.cfg.ID, t.Time, t.Snapshot, prev)
		}
		ticks = append(ticks, t)
		n += len(t.Changes)
	}
	return ticks, nil
}

// write commits ticks in one transaction, retrying until it is
// committed. A run of ticks without changes is committed only when the
// sink has never committed or ProgressInterval has passed since it last
// did.
func (r *runner) write(ctx context.Context, ticks []sinks.Tick) error {
	last := ticks[len(ticks)-1].Time
	if r.resumed && time.Since(r.lastCommit) < r.s.cfg.ProgressInterval && !changes(ticks) {
		return nil
	}
	prepared := false
	for {
		err := r.connected(ctx)
		if err == nil && !prepared {
			if err = r.prepare(ctx, ticks); err == nil {
				prepared = true
			}
		}
		if err == nil {
			if err = r.s.commit(ctx, r.conn, r.batch.records(), last); err != nil {
				r.batch.abandon()
			}
		}
		if err == nil {
			break
		}
		if err := r.fail(ctx, err); err != nil {
			return err
		}
		if err := r.reconnect(ctx); err != nil {
			return err
		}
		switch {
		case r.conn.ok && r.conn.committed >= last:
			// The commit went through before the failure was noticed.
			r.s.log.Info("kafka sink found its transaction committed", "timestamp", last)
		case r.conn.ok != r.resumed || r.conn.committed != r.committed:
			return fmt.Errorf("%w: its progress moved from %d to %d", ErrFenced, r.committed, r.conn.committed)
		default:
			continue
		}
		break
	}
	r.committed, r.resumed, r.lastCommit = last, true, time.Now()
	r.feed.Committed(last)
	r.batch.reset()
	if h := r.s.hooks; h != nil && h.afterCommit != nil {
		h.afterCommit(last)
	}
	r.backoff = 0
	r.report(sinks.Running, "")
	return nil
}

// changes reports whether ticks hold a change or a snapshot.
func changes(ticks []sinks.Tick) bool {
	for _, t := range ticks {
		if len(t.Changes) > 0 || t.Snapshot {
			return true
		}
	}
	return false
}

// prepare encodes ticks into r.batch. A snapshot on a resumed sink
// becomes the difference between the data topic's committed contents
// and the snapshot.
func (r *runner) prepare(ctx context.Context, ticks []sinks.Tick) error {
	r.batch.reset()
	for _, t := range ticks {
		r.batch.startTick(t.Time)
		if !t.Snapshot || !r.resumed {
			r.env.appendChanges(r.batch, t.Changes)
			continue
		}
		state := newTopicState()
		began := time.Now()
		rctx, cancel := context.WithTimeout(ctx, r.s.cfg.Timeout)
		err := r.s.readCommitted(rctx, r.conn.adm, r.s.cfg.Topic, func(rec *kgo.Record) error { return state.apply(r.env, rec) })
		cancel()
		if err != nil {
			return r.conn.errs.Explain(fmt.Errorf("reading back topic %q: %w", r.s.cfg.Topic, err), began)
		}
		before := len(r.batch.items)
		r.env.appendSnapshotDiff(r.batch, t.Changes, state)
		r.s.log.Info("kafka sink resumed from a snapshot", "timestamp", t.Time, "snapshot_rows", len(t.Changes), "records", len(r.batch.items)-before)
	}
	if r.env.violations > 0 {
		if time.Since(r.lastViolationLog) >= violationLogInterval {
			r.lastViolationLog = time.Now()
			r.s.log.Warn("primary key error: expected at most one update per key and tick; the sink's KEY is not a unique key of its relation",
				"keys", r.env.violations, "key", string(r.env.violation))
		}
		r.env.violations = 0
	}
	return nil
}

// connected makes sure the runner has a producer.
func (r *runner) connected(ctx context.Context) error {
	if r.conn != nil {
		return nil
	}
	return r.reconnect(ctx)
}

// reconnect replaces the producer, retrying with backoff until it
// connects or ctx ends.
func (r *runner) reconnect(ctx context.Context) error {
	r.closeConn()
	for {
		c, err := r.s.connect(ctx)
		if err == nil {
			r.conn = c
			return nil
		}
		if err := r.fail(ctx, err); err != nil {
			return err
		}
	}
}

// fail handles a failure: it reports the sink stalled and waits out the
// backoff, or returns an error when retrying cannot help (ctx ended,
// the sink was fenced, the configuration is bad).
func (r *runner) fail(ctx context.Context, err error) error {
	r.closeConn()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case fenced(err):
		reason := fmt.Sprintf("%v: %v", ErrFenced, err)
		r.report(sinks.Stalled, reason)
		return fmt.Errorf("kafka sink %s: %w (%v)", r.s.cfg.ID, ErrFenced, err)
	case pgerr.As(err) != nil:
		r.report(sinks.Stalled, err.Error())
		return err
	}
	r.report(sinks.Stalled, err.Error())
	r.backoff = min(max(2*r.backoff, 100*time.Millisecond), r.s.cfg.MaxBackoff)
	r.s.log.Debug("kafka sink retrying", "err", err, "backoff", r.backoff)
	t := time.NewTimer(r.backoff)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (r *runner) closeConn() {
	if r.conn != nil {
		r.conn.close()
		r.conn = nil
	}
}

// report tells the engine about state changes, and only about those.
func (r *runner) report(st sinks.State, reason string) {
	if st == r.state && reason == r.reason {
		return
	}
	r.state, r.reason = st, reason
	if st == sinks.Stalled {
		r.s.log.Warn("kafka sink stalled", "reason", reason)
	} else {
		r.s.log.Info("kafka sink state", "state", string(st))
	}
	r.eng.Status(st, reason)
}
