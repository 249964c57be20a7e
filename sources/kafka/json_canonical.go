package kafka

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// canonicalizer rewrites JSON text as jsonb's canonical text (the payload
// of a JSONB Datum: object keys sorted by length then bytes, duplicates
// removed with the last one winning, ", " and ": " separators, strings
// re-escaped as escape_json does, numbers as numeric prints them) in one
// pass over the input, without building a tree. It produces exactly what
// types.CanonicalJSONB produces, and defers to it for anything unusual;
// the per-depth scratch slices are reused across records, so a decoder
// owning one canonicalizes without allocating beyond its output.
type canonicalizer struct {
	pairs [][]jsonPair // scratch per nesting depth
	buf   []byte       // unescape scratch
	out   []byte       // output scratch
}

// jsonPair is one member of an object being canonicalized: its key (the
// quoted text, free of escapes) and the span of its value.
type jsonPair struct {
	key        string
	start, end int
}

// canonical returns the canonical jsonb text of s, or types'
// error for invalid input.
func (c *canonicalizer) canonical(s string) (string, error) {
	out, ok := c.appendDoc(c.out[:0], s)
	c.out = out
	if ok {
		return string(out), nil
	}
	return types.CanonicalJSONB(s)
}

// appendDoc appends the canonical text of the document s; not ok sends the
// caller to the slow path.
func (c *canonicalizer) appendDoc(dst []byte, s string) ([]byte, bool) {
	i := skipJSONSpace(s, 0)
	dst, end, ok := c.appendValue(dst, s, i, 0)
	if !ok || skipJSONSpace(s, end) != len(s) {
		return dst, false
	}
	return dst, true
}

// appendValue appends the canonical text of the value at s[i].
func (c *canonicalizer) appendValue(dst []byte, s string, i, depth int) ([]byte, int, bool) {
	if i >= len(s) || depth > maxFastDepth {
		return dst, 0, false
	}
	switch ch := s[i]; {
	case ch == '"':
		end, escaped, ok := scanString(s, i)
		if !ok {
			return dst, 0, false
		}
		if !escaped {
			return append(dst, s[i:end]...), end, true
		}
		c.buf, ok = unescapeString(c.buf[:0], s[i:end])
		if !ok {
			return dst, 0, false
		}
		return types.AppendJSONString(dst, string(c.buf)), end, true
	case ch == '-' || ch >= '0' && ch <= '9':
		end, canonical, ok := scanNumber(s, i)
		if !ok || !canonical {
			return dst, 0, false
		}
		return append(dst, s[i:end]...), end, true
	case ch == '[':
		return c.appendArray(dst, s, i, depth)
	case ch == '{':
		return c.appendObject(dst, s, i, depth)
	default:
		end, ok := scanLiteral(s, i)
		if !ok {
			return dst, 0, false
		}
		return append(dst, s[i:end]...), end, true
	}
}

func (c *canonicalizer) appendArray(dst []byte, s string, i, depth int) ([]byte, int, bool) {
	dst = append(dst, '[')
	i = skipJSONSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return append(dst, ']'), i + 1, true
	}
	for first := true; ; first = false {
		if !first {
			dst = append(dst, ", "...)
		}
		var ok bool
		dst, i, ok = c.appendValue(dst, s, i, depth+1)
		if !ok {
			return dst, 0, false
		}
		i = skipJSONSpace(s, i)
		switch {
		case i >= len(s):
			return dst, 0, false
		case s[i] == ']':
			return append(dst, ']'), i + 1, true
		case s[i] != ',':
			return dst, 0, false
		}
		i = skipJSONSpace(s, i+1)
	}
}

func (c *canonicalizer) appendObject(dst []byte, s string, i, depth int) ([]byte, int, bool) {
	for len(c.pairs) <= depth {
		c.pairs = append(c.pairs, nil)
	}
	pairs := c.pairs[depth][:0]

	i = skipJSONSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return append(dst, "{}"...), i + 1, true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return dst, 0, false
		}
		keyEnd, escaped, ok := scanString(s, i)
		if !ok || escaped {
			return dst, 0, false
		}
		key := s[i:keyEnd]
		i = skipJSONSpace(s, keyEnd)
		if i >= len(s) || s[i] != ':' {
			return dst, 0, false
		}
		i = skipJSONSpace(s, i+1)
		end, ok := skipValue(s, i, depth+1)
		if !ok {
			return dst, 0, false
		}
		pairs = append(pairs, jsonPair{key: key, start: i, end: end})
		i = skipJSONSpace(s, end)
		if i >= len(s) {
			return dst, 0, false
		}
		if s[i] == '}' {
			i++
			break
		}
		if s[i] != ',' {
			return dst, 0, false
		}
		i = skipJSONSpace(s, i+1)
	}
	c.pairs[depth] = pairs // keep the grown scratch for the next record
	sortPairs(pairs)
	dst = append(dst, '{')
	n := 0
	for k := range pairs {
		if k+1 < len(pairs) && pairs[k+1].key == pairs[k].key {
			continue // a later duplicate wins
		}
		if n > 0 {
			dst = append(dst, ", "...)
		}
		n++
		dst = append(dst, pairs[k].key...)
		dst = append(dst, ": "...)
		var ok bool
		dst, _, ok = c.appendValue(dst, s, pairs[k].start, depth+1)
		if !ok {
			return dst, 0, false
		}
	}
	return append(dst, '}'), i, true
}

// lessKey is jsonb's key order on quoted keys without escapes: shorter
// first, then bytewise (the quotes add the same length and prefix to both).
func lessKey(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// sortPairs sorts stably by key, so that among duplicates the last one in
// the input ends last. Objects are usually small and often already sorted,
// where insertion sort wins.
func sortPairs(p []jsonPair) {
	if len(p) > 16 {
		slices.SortStableFunc(p, func(a, b jsonPair) int {
			if len(a.key) != len(b.key) {
				return len(a.key) - len(b.key)
			}
			return strings.Compare(a.key, b.key)
		})
		return
	}
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && lessKey(p[j].key, p[j-1].key); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}
