package scalar

import (
	"encoding/binary"
	"errors"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/internal/int128"
	"github.com/streamdb/streamdb/types"
)

// Aggregate states persist for a persisted Reduce (dataflow.PersistentState):
// an accumulator as its exact counts and sums, and the collections of
// DISTINCT and ordered aggregates element by element
// (dataflow.ElementState), so that a tick writes the values it changed,
// not a group's whole multiset. What an accumulator is configured with
// (a sum's result type, a variance's kind) comes from the aggregate
// call, which the restarted view builds again; only what rows changed
// is encoded. Numbers are varints; exact sums are their integers'
// magnitude bytes and sign; decimals their form, sign, exponent and
// coefficient.

var (
	_ dataflow.ElementState    = (*aggState)(nil)
	_ dataflow.PersistentState = (*extremeState)(nil)
)

// errCorruptAggState is the error of a persisted state that does not
// decode.
var errCorruptAggState = errors.New("corrupt persisted aggregate state")

// accPersister is an accumulator whose state persists.
type accPersister interface {
	appendState(dst []byte) []byte
	// loadState decodes appendState's encoding and returns the rest.
	loadState(src []byte) ([]byte, error)
}

// AppendState encodes the accumulator; a multiset's or DISTINCT's
// values are elements.
func (s *aggState) AppendState(dst []byte) []byte {
	if s.set != nil {
		return dst
	}
	return s.acc.(accPersister).appendState(dst)
}

// LoadState restores the accumulator.
func (s *aggState) LoadState(src []byte) error {
	if s.set != nil {
		return nil
	}
	_, err := s.acc.(accPersister).loadState(src)
	return err
}

// TrackElements starts recording the multiset's or DISTINCT's changed
// values.
func (s *aggState) TrackElements() {
	if s.set != nil || s.distinct != nil {
		s.changed = map[string]struct{}{}
	}
}

// DrainElements reports the changed values: a multiset entry's key with
// its count and the length of its equal part, or a DISTINCT tuple's key
// with the count of its forms and each form (its exact encoding and
// count).
func (s *aggState) DrainElements(fn func(key []byte, n int64, payload []byte)) {
	for k := range s.changed {
		var n int64
		var payload []byte
		switch {
		case s.set != nil:
			s.set.probe.key = k
			if e, ok := s.set.tree.Get(&s.set.probe); ok {
				n, payload = e.n, binary.AppendUvarint(s.keyBuf[:0], uint64(e.eq))
			}
		default:
			if dk := s.distinct[k]; dk != nil {
				payload = s.keyBuf[:0]
				for _, f := range dk.forms {
					n += f.n
					payload = appendLen(payload, []byte(f.exact))
					payload = binary.AppendVarint(payload, f.n)
				}
			}
		}
		fn([]byte(k), n, payload)
	}
	clear(s.changed)
}

// LoadElement puts back a value DrainElements reported.
func (s *aggState) LoadElement(key []byte, n int64, payload []byte) error {
	if s.set != nil {
		eq, k := binary.Uvarint(payload)
		if k <= 0 || eq > uint64(len(key)) {
			return errCorruptAggState
		}
		args, err := types.DecodeRow(key[eq:], nil)
		if err != nil {
			return err
		}
		e := &msEntry{key: string(key), eq: int(eq), args: args, n: n}
		s.set.tree.Set(e)
		s.set.bytes += e.size()
		return nil
	}
	if s.distinct == nil {
		return errCorruptAggState
	}
	dk := &distinctKey{}
	for len(payload) > 0 {
		exact, rest, err := readLen(payload)
		if err != nil {
			return err
		}
		fn, m := binary.Varint(rest)
		if m <= 0 {
			return errCorruptAggState
		}
		payload = rest[m:]
		args, err := types.DecodeRow(exact, nil)
		if err != nil {
			return err
		}
		dk.forms = append(dk.forms, distinctForm{exact: string(exact), args: args, n: fn})
		s.distinctBytes += formBytes(len(exact), len(args))
	}
	s.distinct[string(key)] = dk
	s.distinctBytes += int64(len(key)) + 64
	return nil
}

// AppendState encodes the extreme: its key and exact encodings, or
// nothing while there is none.
func (s *extremeState) AppendState(dst []byte) []byte {
	if s.key == nil {
		return dst
	}
	return appendLen(appendLen(dst, s.key), s.exact)
}

// LoadState restores the extreme, decoding it from its exact encoding.
func (s *extremeState) LoadState(src []byte) error {
	if len(src) == 0 {
		return nil
	}
	key, rest, err := readLen(src)
	if err != nil {
		return err
	}
	exact, _, err := readLen(rest)
	if err != nil {
		return err
	}
	args, err := types.DecodeRow(exact, nil)
	if err != nil || len(args) != 1 {
		return errCorruptAggState
	}
	s.best = args[0]
	s.key = append(s.key[:0], key...)
	s.exact = append(s.exact[:0], exact...)
	return nil
}

func (c *countAcc) appendState(dst []byte) []byte { return binary.AppendVarint(dst, c.n) }

func (c *countAcc) loadState(src []byte) ([]byte, error) {
	return readVarints(src, &c.n)
}

func (b *boolAcc) appendState(dst []byte) []byte {
	return binary.AppendVarint(binary.AppendVarint(dst, b.t), b.f)
}

func (b *boolAcc) loadState(src []byte) ([]byte, error) { return readVarints(src, &b.t, &b.f) }

func (s *intSumAcc) appendState(dst []byte) []byte {
	return binary.AppendVarint(appendInt128(dst, s.sum), s.n)
}

func (s *intSumAcc) loadState(src []byte) ([]byte, error) {
	rest, err := readInt128(src, &s.sum)
	if err != nil {
		return nil, err
	}
	return readVarints(rest, &s.n)
}

func (s *floatSumAcc) appendState(dst []byte) []byte {
	return binary.AppendVarint(s.sum.appendState(dst), s.n)
}

func (s *floatSumAcc) loadState(src []byte) ([]byte, error) {
	rest, err := s.sum.loadState(src)
	if err != nil {
		return nil, err
	}
	return readVarints(rest, &s.n)
}

func (s *numSumAcc) appendState(dst []byte) []byte {
	return binary.AppendVarint(s.sum.appendState(dst), s.n)
}

func (s *numSumAcc) loadState(src []byte) ([]byte, error) {
	rest, err := s.sum.loadState(src)
	if err != nil {
		return nil, err
	}
	return readVarints(rest, &s.n)
}

// avgAcc persists the accumulator its kind uses.
func (s *avgAcc) appendState(dst []byte) []byte {
	switch s.kind {
	case types.Float4, types.Float8:
		return s.flts.appendState(dst)
	case types.Numeric:
		return s.nums.appendState(dst)
	}
	return s.ints.appendState(dst)
}

func (s *avgAcc) loadState(src []byte) ([]byte, error) {
	switch s.kind {
	case types.Float4, types.Float8:
		return s.flts.loadState(src)
	case types.Numeric:
		return s.nums.loadState(src)
	}
	return s.ints.loadState(src)
}

func (s *intervalSumAcc) appendState(dst []byte) []byte {
	dst = binary.AppendVarint(binary.AppendVarint(dst, s.months), s.days)
	return binary.AppendVarint(appendInt128(dst, s.micros), s.n)
}

func (s *intervalSumAcc) loadState(src []byte) ([]byte, error) {
	rest, err := readVarints(src, &s.months, &s.days)
	if err != nil {
		return nil, err
	}
	if rest, err = readInt128(rest, &s.micros); err != nil {
		return nil, err
	}
	return readVarints(rest, &s.n)
}

func (v *varianceAcc) appendState(dst []byte) []byte {
	dst = binary.AppendVarint(dst, v.n)
	if v.float {
		return v.fx2.appendState(v.fx.appendState(dst))
	}
	return appendDecimal(v.sumX.appendState(dst), &v.sumX2)
}

func (v *varianceAcc) loadState(src []byte) ([]byte, error) {
	rest, err := readVarints(src, &v.n)
	if err != nil {
		return nil, err
	}
	if v.float {
		if rest, err = v.fx.loadState(rest); err != nil {
			return nil, err
		}
		return v.fx2.loadState(rest)
	}
	if rest, err = v.sumX.loadState(rest); err != nil {
		return nil, err
	}
	return readDecimal(rest, &v.sumX2)
}

func (s *floatSum) appendState(dst []byte) []byte {
	dst = append(dst, byte(s.fixed.Sign()+1))
	dst = appendLen(dst, s.fixed.Bytes())
	dst = binary.AppendVarint(dst, s.posInf)
	dst = binary.AppendVarint(dst, s.negInf)
	return binary.AppendVarint(dst, s.nan)
}

func (s *floatSum) loadState(src []byte) ([]byte, error) {
	if len(src) == 0 || src[0] > 2 {
		return nil, errCorruptAggState
	}
	sign := int(src[0]) - 1
	mag, rest, err := readLen(src[1:])
	if err != nil {
		return nil, err
	}
	s.fixed.SetBytes(mag)
	if sign < 0 {
		s.fixed.Neg(&s.fixed)
	}
	return readVarints(rest, &s.posInf, &s.negInf, &s.nan)
}

func (s *numSum) appendState(dst []byte) []byte {
	dst = appendDecimal(dst, &s.sum)
	dst = binary.AppendUvarint(dst, uint64(len(s.scales)))
	for sc, n := range s.scales {
		dst = binary.AppendVarint(binary.AppendVarint(dst, int64(sc)), n)
	}
	dst = binary.AppendVarint(dst, s.nan)
	dst = binary.AppendVarint(dst, s.posInf)
	return binary.AppendVarint(dst, s.negInf)
}

func (s *numSum) loadState(src []byte) ([]byte, error) {
	rest, err := readDecimal(src, &s.sum)
	if err != nil {
		return nil, err
	}
	count, k := binary.Uvarint(rest)
	if k <= 0 || count > uint64(len(rest)) {
		return nil, errCorruptAggState
	}
	rest = rest[k:]
	if count > 0 {
		s.scales = make(map[int32]int64, count)
	}
	for range count {
		var sc, n int64
		if rest, err = readVarints(rest, &sc, &n); err != nil {
			return nil, err
		}
		s.scales[int32(sc)] = n
	}
	return readVarints(rest, &s.nan, &s.posInf, &s.negInf)
}

// appendDecimal encodes d exactly: form, sign, exponent, coefficient.
func appendDecimal(dst []byte, d *apd.Decimal) []byte {
	neg := byte(0)
	if d.Negative {
		neg = 1
	}
	dst = append(dst, byte(d.Form), neg)
	dst = binary.AppendVarint(dst, int64(d.Exponent))
	return appendLen(dst, d.Coeff.Bytes())
}

func readDecimal(src []byte, d *apd.Decimal) ([]byte, error) {
	if len(src) < 2 {
		return nil, errCorruptAggState
	}
	d.Form, d.Negative = apd.Form(src[0]), src[1] == 1
	exp, k := binary.Varint(src[2:])
	if k <= 0 {
		return nil, errCorruptAggState
	}
	coeff, rest, err := readLen(src[2+k:])
	if err != nil {
		return nil, err
	}
	d.Exponent = int32(exp)
	d.Coeff.SetBytes(coeff)
	return rest, nil
}

func appendInt128(dst []byte, v int128.Int) []byte {
	return binary.AppendUvarint(binary.AppendVarint(dst, v.Hi), v.Lo)
}

func readInt128(src []byte, v *int128.Int) ([]byte, error) {
	hi, k := binary.Varint(src)
	if k <= 0 {
		return nil, errCorruptAggState
	}
	lo, m := binary.Uvarint(src[k:])
	if m <= 0 {
		return nil, errCorruptAggState
	}
	v.Hi, v.Lo = hi, lo
	return src[k+m:], nil
}

// readVarints decodes varints into vs in order and returns the rest.
func readVarints(src []byte, vs ...*int64) ([]byte, error) {
	for _, v := range vs {
		x, k := binary.Varint(src)
		if k <= 0 {
			return nil, errCorruptAggState
		}
		*v, src = x, src[k:]
	}
	return src, nil
}

func appendLen(dst, b []byte) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(b))), b...)
}

func readLen(src []byte) ([]byte, []byte, error) {
	n, k := binary.Uvarint(src)
	if k <= 0 || n > uint64(len(src)-k) {
		return nil, nil, errCorruptAggState
	}
	return src[k : k+int(n)], src[k+int(n):], nil
}
