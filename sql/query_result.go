package sql

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strconv"
	"unsafe"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// A query's rows stream to its client as its one-tick dataflow produces
// them: `SELECT * FROM big_view` sends its first rows at once, and a
// query that returns billions of rows holds a chunk of them at a time.
// The dataflow's final step runs in a coroutine (iter.Pull) that
// Execute starts and each Next resumes for the next chunk; Execute
// computes the first chunk, so that a query that fails before its first
// row fails at once, as before. Only immutable data is read after
// Execute returns: the snapshot, and the tables the transaction wrote to
// read whole while the query was built (see runQueryAt), so a portal
// suspended while its transaction writes on still returns the rows of
// the statement's start.

// queryResult is a query's streaming result (pgwire.Result).
type queryResult struct {
	s    *session
	next func() (dataflow.Batch, error, bool)
	stop func()
	// run is the statement's execution once the result has taken it
	// over (see lingering); nil when another statement's run reads the
	// result (a cursor's DECLARE, COPY TO).
	run *stmtRun
	// b is the chunk being returned: b[i] with left copies to go.
	b    dataflow.Batch
	i    int
	left int64
	rows int
	done bool
}

var (
	_ pgwire.Result = (*queryResult)(nil)
	_ lingering     = (*queryResult)(nil)
)

// errResultClosed stops the dataflow of a result closed before its end.
var errResultClosed = errors.New("query result closed")

// streamQuery runs a query whose rows stream to the client. ctx is the
// statement's execution context (see stmtRun), which the query's
// coroutine keeps until the result is closed.
func (s *session) streamQuery(ctx context.Context, q *planner.Query, params []types.Datum) (pgwire.Result, error) {
	seq := func(yield func(dataflow.Batch, error) bool) {
		for {
			snap := s.e.snapshot()
			started := false
			err := s.runQueryAt(ctx, snap, q, params, nil, func(b dataflow.Batch) error {
				started = true
				if !yield(b, nil) {
					return errResultClosed
				}
				return nil
			})
			if errors.Is(err, dataflow.ErrSnapshotGone) && !started {
				// See runQuerySnap: nothing was sent, so run again.
				select {
				case <-snap.Next():
					continue
				case <-ctx.Done():
					err = ctx.Err()
				}
			}
			if err != nil && !errors.Is(err, errResultClosed) {
				yield(nil, err)
			}
			return
		}
	}
	next, stop := iter.Pull2(seq)
	r := &queryResult{s: s, next: next, stop: stop}
	if err := r.pull(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// pull resumes the dataflow for its next chunk.
func (r *queryResult) pull() error {
	b, err, ok := r.next()
	r.b, r.i, r.left = b, -1, 0
	if err != nil || !ok {
		r.b, r.done = nil, true
	}
	return err
}

func (r *queryResult) Next(ctx context.Context) (row types.Row, ok bool, err error) {
	for r.left == 0 {
		if r.i++; r.i < len(r.b) {
			r.left = r.b[r.i].Diff
			continue
		}
		if r.done {
			return nil, false, nil
		}
		if err := r.pullFor(ctx); err != nil {
			return nil, false, err
		}
	}
	r.left--
	// A row of a large multiplicity repeats without a pull.
	if r.rows++; r.rows&4095 == 0 && ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	return r.b[r.i].Row, true, nil
}

// pullFor pulls the next chunk within a call of the client's: its cancel
// cancels the statement meanwhile, and a failure fails the statement (and
// its transaction block) as an error of Execute would.
func (r *queryResult) pullFor(ctx context.Context) (err error) {
	if r.run == nil {
		return r.pull()
	}
	defer r.s.recoverPanic(&err)
	detach := r.run.attach(ctx)
	defer detach()
	if err = r.run.err(r.pull()); err != nil {
		r.s.fail()
	}
	return err
}

func (r *queryResult) Tag() string { return "SELECT " + strconv.Itoa(r.rows) }

// Close stops the dataflow if it is still running and ends the
// statement's execution.
func (r *queryResult) Close() {
	if r.stop != nil {
		r.stop()
		r.next, r.stop, r.b = nil, nil, nil
	}
	if r.run != nil {
		r.run.end()
		r.run = nil
	}
}

func (r *queryResult) linger(run *stmtRun) { r.run = run }

// resultOut receives a query's result from its dataflow's Sink: rows
// without the hidden sort columns, in order when the query is ordered,
// for which it gathers them all and sorts them at the end (the top-k
// upstream has kept only those a LIMIT returns).
type resultOut struct {
	q    *planner.Query
	emit func(dataflow.Batch) error
	buf  dataflow.Batch
	// sorted gathers an ordered query's rows, held estimating their
	// bytes.
	sorted dataflow.Batch
	held   int64
}

func (o *resultOut) receive(_ context.Context, b dataflow.Batch) error {
	if len(o.q.Order) == 0 {
		return o.send(b)
	}
	o.sorted = append(o.sorted, b...)
	for _, u := range b {
		o.held += sizeUpdate + rowBytes(u.Row)
	}
	return nil
}

// send hands a batch on without the hidden columns.
func (o *resultOut) send(b dataflow.Batch) error {
	if o.q.Hidden == 0 {
		return o.emit(b)
	}
	width := len(o.q.Root.Columns()) - o.q.Hidden
	o.buf = o.buf[:0]
	for _, u := range b {
		o.buf = append(o.buf, dataflow.Update{Row: u.Row[:width:width], Diff: u.Diff})
	}
	return o.emit(o.buf)
}

// end sorts and sends an ordered query's rows.
func (o *resultOut) end() error {
	if len(o.q.Order) == 0 {
		return nil
	}
	cmp := planner.Comparator(o.q.Order)
	slices.SortStableFunc(o.sorted, func(a, b dataflow.Update) int { return cmp(a.Row, b.Row) })
	for start := 0; start < len(o.sorted); start += sendRows {
		if err := o.send(o.sorted[start:min(start+sendRows, len(o.sorted))]); err != nil {
			return err
		}
	}
	return nil
}

// sendRows is the size of the batches an ordered query's rows are sent
// in.
const sendRows = 4096

const (
	sizeUpdate = int64(unsafe.Sizeof(dataflow.Update{}))
	sizeDatum  = int64(unsafe.Sizeof(types.Datum{}))
)

// rowBytes estimates the memory of a row: its Datums and their strings.
func rowBytes(r types.Row) int64 {
	n := int64(len(r)) * sizeDatum
	for _, d := range r {
		n += int64(len(d.Str()))
	}
	return n
}

// feedView reads a view's rows into a one-tick input as the dataflow
// asks for them.
func feedView(in *dataflow.Input, vs *dataflow.Snapshot) {
	in.Feed(vs.Len(), func(_ context.Context, emit func(dataflow.Batch) error) error {
		var b dataflow.Batch
		var err error
		serr := vs.Scan(func(row types.Row, n int64) bool {
			if b = append(b, dataflow.Update{Row: row, Diff: n}); len(b) == sendRows {
				err, b = emit(b), b[:0]
			}
			return err == nil
		})
		if err == nil && len(b) > 0 {
			err = emit(b)
		}
		if err == nil {
			err = serr
		}
		return err
	})
}

// feedTable reads a table's rows, decoded in the columns keep reports
// (all when nil), into a one-tick input as the dataflow asks for them.
// Only a table the transaction has not written to is read so, its
// snapshot being immutable (see txnChanged).
func feedTable(snap *engine.Snapshot, in *dataflow.Input, obj *catalog.Object, get *planner.Get, keep func(col int) bool) error {
	base, ok := snap.Table(obj.ID)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", obj.Name)
	}
	in.Feed(base.SizeHint(), func(_ context.Context, emit func(dataflow.Batch) error) error {
		var b dataflow.Batch
		var err error
		dec := engine.NewRowReader(len(obj.Columns), keep)
		serr := base.ScanRange("", "", dec, func(key string, row types.Row) bool {
			if b = append(b, dataflow.Update{Row: keyed(row, key, get.WithKey), Diff: 1}); len(b) == sendRows {
				err, b = emit(narrowRows(b, obj, get)), b[:0]
			}
			return err == nil
		})
		if err == nil && len(b) > 0 {
			err = emit(narrowRows(b, obj, get))
		}
		if err == nil {
			err = serr
		}
		return err
	})
	return nil
}

// txnChanged reports whether the session's transaction has written to
// the table id.
func (s *session) txnChanged(id uint64) bool {
	if s.txn == nil {
		return false
	}
	tt, ok := s.txn.tables[id]
	return ok && len(tt.changes) > 0
}
