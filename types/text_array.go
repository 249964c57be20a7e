package types

import (
	"slices"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// appendArray prints an array as array_out does: elements separated by
// commas inside braces, one level of braces per dimension, NULL for null
// elements, and double quotes (with \" and \\ escapes) around elements
// that are empty, contain braces, quotes, commas, backslashes or white
// space, or spell NULL.
func appendArray(dst []byte, a *ArrayValue, cfg *TextConfig) []byte {
	if len(a.Elems) == 0 {
		return append(dst, "{}"...)
	}
	var scratch []byte
	lens := a.Lengths()
	// counts[d] is how many elements of dimension d the current
	// sub-array of that dimension has printed.
	var counts [MaxArrayDims]int32
	for range lens {
		dst = append(dst, '{')
	}
	for i, e := range a.Elems {
		if i > 0 {
			// Close the sub-arrays the previous element ended, then
			// open as many.
			d := len(lens) - 1
			closed := 0
			for counts[d] == lens[d] {
				counts[d] = 0
				dst = append(dst, '}')
				closed++
				d--
			}
			dst = append(dst, ',')
			for range closed {
				dst = append(dst, '{')
			}
		}
		counts[len(lens)-1]++
		for d := len(lens) - 2; d >= 0 && counts[d+1] == 1; d-- {
			counts[d]++
		}
		if e.IsNull() {
			dst = append(dst, "NULL"...)
			continue
		}
		scratch = AppendText(scratch[:0], e, a.Elem, cfg)
		if !needsArrayQuotes(scratch) {
			dst = append(dst, scratch...)
			continue
		}
		dst = append(dst, '"')
		for _, c := range scratch {
			if c == '"' || c == '\\' {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		}
		dst = append(dst, '"')
	}
	for range lens {
		dst = append(dst, '}')
	}
	return dst
}

func needsArrayQuotes(s []byte) bool {
	if len(s) == 0 || len(s) == 4 && strings.EqualFold(string(s), "null") {
		return true
	}
	for _, c := range s {
		switch c {
		case '{', '}', ',', '"', '\\':
			return true
		}
		if isSpace(c) {
			return true
		}
	}
	return false
}

func errMalformedArray(s, detail string) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "malformed array literal: %s", quoteValue(s)).WithDetail("%s", detail)
}

// parseArray reads array_in's syntax: optional dimensions ("[1:2][1:3]="
// or "[2]="), then nested braces, one level per dimension, with elements
// separated by commas, optionally double-quoted with backslash escapes,
// unquoted NULL for a null element, white space around elements ignored.
// Sub-arrays of one level must have the same length. Each element goes
// through the element type's input function and modifier. Lower bounds
// other than 1 are refused (ErrArrayBounds).
func parseArray(s string, elem Type, cfg *TextConfig) (Datum, error) {
	p := arrayParser{s: s, t: trimSpace(s), elem: elem, cfg: cfg}
	declared, err := p.dimensions()
	if err != nil {
		return Null, err
	}
	if p.i >= len(p.t) || p.t[p.i] != '{' {
		return Null, errMalformedArray(s, `Array value must start with "{" or dimension information.`)
	}
	if err := p.level(0); err != nil {
		return Null, err
	}
	p.skip()
	if p.i != len(p.t) {
		return Null, errMalformedArray(s, "Junk after closing right brace.")
	}
	dims := p.dims[:p.ndim]
	if declared != nil && !slices.Equal(declared, dims) {
		return Null, errMalformedArray(s, "Specified array dimensions do not match array contents.")
	}
	a, err := NewArrayDims(elem, p.elems, dims)
	if err != nil {
		return Null, err
	}
	return NewArray(a), nil
}

// arrayParser is the state of parseArray over t, the trimmed input s.
type arrayParser struct {
	s, t  string
	i     int
	elem  Type
	cfg   *TextConfig
	elems []Datum
	// ndim is the number of dimensions, known from the first element's
	// depth (0 before); dims[d] is the length of the sub-arrays at
	// depth d, known once one of them has ended (0 before).
	ndim int
	dims [MaxArrayDims]int32
	buf  strings.Builder
}

func (p *arrayParser) skip() {
	for p.i < len(p.t) && isSpace(p.t[p.i]) {
		p.i++
	}
}

// dimensions reads an explicit "[lo:hi]...=" prefix, returning the
// lengths it declares (nil without one).
func (p *arrayParser) dimensions() ([]int32, error) {
	var dims []int32
	for p.i < len(p.t) && p.t[p.i] == '[' {
		p.i++
		close := strings.IndexByte(p.t[p.i:], ']')
		if close < 0 {
			return nil, errMalformedArray(p.s, `Missing "]" after array dimensions.`)
		}
		spec := p.t[p.i : p.i+close]
		p.i += close + 1
		lo, hi := "1", spec
		if before, after, ok := strings.Cut(spec, ":"); ok {
			lo, hi = before, after
		}
		l, err1 := strconv.Atoi(strings.TrimSpace(lo))
		h, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil {
			return nil, errMalformedArray(p.s, "Missing array dimension value.")
		}
		if h < l-1 {
			return nil, pgerr.New(pgerr.ArraySubscriptError, "upper bound cannot be less than lower bound")
		}
		if l != 1 {
			return nil, ErrArrayBounds()
		}
		if len(dims) == MaxArrayDims {
			return nil, ErrArrayDims(len(dims) + 1)
		}
		dims = append(dims, int32(h))
		p.skip()
	}
	if dims == nil {
		return nil, nil
	}
	if p.i >= len(p.t) || p.t[p.i] != '=' {
		return nil, errMalformedArray(p.s, `Missing "=" after array dimensions.`)
	}
	p.i++
	p.skip()
	return dims, nil
}

// level reads the braces at p.i, a sub-array at depth.
func (p *arrayParser) level(depth int) error {
	if depth >= MaxArrayDims {
		return ErrArrayDims(depth + 1)
	}
	p.i++ // the '{'
	p.skip()
	if p.i < len(p.t) && p.t[p.i] == '}' {
		if depth > 0 {
			return errMalformedArray(p.s, `Unexpected "}" character.`)
		}
		p.i++
		return nil
	}
	var n int32
	for {
		p.skip()
		if p.i >= len(p.t) {
			return errMalformedArray(p.s, "Unexpected end of input.")
		}
		if p.t[p.i] == '{' {
			if p.ndim != 0 && depth+1 >= p.ndim {
				return errMalformedArray(p.s, `Unexpected "{" character.`)
			}
			if err := p.level(depth + 1); err != nil {
				return err
			}
		} else {
			if p.ndim == 0 {
				p.ndim = depth + 1
			} else if depth+1 != p.ndim {
				return errMalformedArray(p.s, "Unexpected array element.")
			}
			if err := p.element(); err != nil {
				return err
			}
		}
		n++
		p.skip()
		if p.i >= len(p.t) {
			return errMalformedArray(p.s, "Unexpected end of input.")
		}
		c := p.t[p.i]
		p.i++
		if c == '}' {
			break
		}
		if c != ',' {
			return errMalformedArray(p.s, "Unexpected array element.")
		}
	}
	switch {
	case p.dims[depth] == 0:
		p.dims[depth] = n
	case p.dims[depth] != n:
		return errMalformedArray(p.s, "Multidimensional arrays must have sub-arrays with matching dimensions.")
	}
	return nil
}

// element reads one element up to the ',' or '}' after it.
func (p *arrayParser) element() error {
	t := p.t
	p.buf.Reset()
	quoted, sawQuote := false, false
	trailing := 0 // unquoted trailing white space to drop
	for ; p.i < len(t); p.i++ {
		c := t[p.i]
		if quoted {
			switch c {
			case '\\':
				if p.i+1 < len(t) {
					p.i++
					p.buf.WriteByte(t[p.i])
				}
			case '"':
				quoted = false
			default:
				p.buf.WriteByte(c)
			}
			continue
		}
		if c == ',' || c == '}' {
			break
		}
		closed := sawQuote && !quoted
		switch {
		case isSpace(c):
			if p.buf.Len() > 0 && !closed {
				p.buf.WriteByte(c)
				trailing++
			}
		case closed:
			return errMalformedArray(p.s, "Unexpected array element.")
		case c == '"':
			if p.buf.Len() > 0 {
				return errMalformedArray(p.s, "Unexpected array element.")
			}
			quoted, sawQuote = true, true
		case c == '\\':
			if p.i+1 < len(t) {
				p.i++
				p.buf.WriteByte(t[p.i])
			}
			trailing = 0
		case c == '{':
			return errMalformedArray(p.s, `Unexpected "{" character.`)
		default:
			p.buf.WriteByte(c)
			trailing = 0
		}
	}
	if quoted || p.i >= len(t) {
		return errMalformedArray(p.s, "Unexpected end of input.")
	}
	text := p.buf.String()
	text = text[:len(text)-trailing]
	if !sawQuote && strings.EqualFold(text, "null") {
		p.elems = append(p.elems, Null)
		return nil
	}
	d, err := ParseText(text, p.elem, p.cfg)
	if err != nil {
		return err
	}
	p.elems = append(p.elems, d)
	return nil
}
