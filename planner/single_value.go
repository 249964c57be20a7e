package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// singleValue is the aggregate behind a scalar subquery: the value of the
// group's only row, NULL for an empty group, and PostgreSQL's error when
// the subquery returns more than one row. It keeps the multiset of values
// so that it stays right under retraction.
type singleValue struct {
	col int
}

var _ dataflow.Aggregate = singleValue{}

func (a singleValue) NewState() dataflow.AggState { return &singleValueState{col: a.col} }

type singleValueState struct {
	col   int
	total int64
	// vals counts each distinct value by its key encoding.
	vals map[string]*valueCount
}

type valueCount struct {
	d types.Datum
	n int64
}

func (s *singleValueState) Update(row types.Row, diff int64) error {
	d := row[s.col]
	if s.vals == nil {
		s.vals = map[string]*valueCount{}
	}
	k := string(types.AppendValue(nil, d))
	vc := s.vals[k]
	if vc == nil {
		vc = &valueCount{d: d}
		s.vals[k] = vc
	}
	vc.n += diff
	if vc.n == 0 {
		delete(s.vals, k)
	}
	s.total += diff
	return nil
}

func (s *singleValueState) Result() (types.Datum, error) {
	switch {
	case s.total == 0:
		return types.Null, nil
	case s.total > 1:
		return types.Null, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
	}
	for _, vc := range s.vals {
		if vc.n == 1 {
			return vc.d, nil
		}
	}
	return types.Null, nil
}
