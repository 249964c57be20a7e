package scalar

import (
	"bytes"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// extremeState is min or max over an append-only input
// (AggSpec.AppendOnly): a value that is not the extreme now never will be,
// since no row is ever retracted, so the state is the extreme alone where
// the general min and max keep every value in an ordered multiset for
// the retraction of the current one (Nexmark q4 and q7, the highest bid
// of an auction or a window, paid for that tree on every bid).
//
// Values compare by their key encoding, as the multiset orders them, and
// of equal values written differently (numerics 7 and 7.0) min keeps the
// form of the least exact encoding and max of the greatest, as there:
// both give the same result, whatever the order rows come in.
type extremeState struct {
	agg  *aggregate
	max  bool
	best types.Datum
	key  []byte // best's key encoding; nil while there is none
	// exact is best's exact encoding (types.AppendRow), which orders
	// equal values' forms.
	exact []byte
	buf   []byte
	ebuf  []byte
	args  [1]types.Datum
}

// extremeAgg is the aggregate whose states are extremeStates.
type extremeAgg struct {
	*aggregate
	max bool
}

func (a extremeAgg) NewState() dataflow.AggState {
	return &extremeState{agg: a.aggregate, max: a.max}
}

func (s *extremeState) Update(row types.Row, diff int64) error {
	spec := &s.agg.spec
	if ok, err := spec.passes(row); err != nil || !ok {
		return err
	}
	d, err := spec.Args[0](spec.Eval, row)
	if err != nil || d.IsNull() || diff == 0 {
		return err
	}
	if diff < 0 {
		return pgerr.New(pgerr.InternalError, "%s over an append-only input received a retraction", s.agg.fn.Name)
	}
	s.args[0] = d
	s.buf = types.AppendKeyRow(s.buf[:0], s.args[:])
	s.ebuf = types.AppendRow(s.ebuf[:0], s.args[:])
	c := bytes.Compare(s.buf, s.key)
	if c == 0 {
		c = bytes.Compare(s.ebuf, s.exact)
	}
	if s.key != nil && (c == 0 || (c < 0) == s.max) {
		return nil
	}
	s.best = d
	s.key = append(s.key[:0], s.buf...)
	s.exact = append(s.exact[:0], s.ebuf...)
	return nil
}

func (s *extremeState) Result() (types.Datum, error) { return s.best, nil }

func (s *extremeState) StateBytes() int64 {
	return int64(cap(s.key)+cap(s.buf)+cap(s.exact)+cap(s.ebuf)) + 96
}
