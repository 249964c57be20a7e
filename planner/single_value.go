package planner

import (
	"encoding/binary"
	"errors"

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
	// vals counts each distinct value by its value encoding.
	vals map[string]*valueCount
	// changed holds the values changed since they were last persisted,
	// once TrackElements was called.
	changed map[string]struct{}
}

var _ dataflow.ElementState = (*singleValueState)(nil)

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
	if s.changed != nil {
		s.changed[k] = struct{}{}
	}
	s.total += diff
	return nil
}

// A persisted singleValueState is its total, and each value an element
// under its value encoding, with its count.

func (s *singleValueState) AppendState(dst []byte) []byte { return binary.AppendVarint(dst, s.total) }

func (s *singleValueState) LoadState(src []byte) error {
	total, k := binary.Varint(src)
	if k <= 0 {
		return errCorruptSingleValue
	}
	s.total = total
	return nil
}

func (s *singleValueState) TrackElements() { s.changed = map[string]struct{}{} }

func (s *singleValueState) DrainElements(fn func(key []byte, n int64, payload []byte)) {
	for k := range s.changed {
		var n int64
		if vc := s.vals[k]; vc != nil {
			n = vc.n
		}
		fn([]byte(k), n, nil)
	}
	clear(s.changed)
}

func (s *singleValueState) LoadElement(key []byte, n int64, _ []byte) error {
	d, _, err := types.DecodeValue(key)
	if err != nil {
		return err
	}
	if s.vals == nil {
		s.vals = map[string]*valueCount{}
	}
	s.vals[string(key)] = &valueCount{d: d, n: n}
	return nil
}

var errCorruptSingleValue = errors.New("corrupt persisted scalar subquery state")

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
