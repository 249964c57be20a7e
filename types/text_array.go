package types

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// appendArray prints a one-dimensional array as array_out does: elements
// separated by commas inside braces, NULL for null elements, and double
// quotes (with \" and \\ escapes) around elements that are empty, contain
// braces, quotes, commas, backslashes or white space, or spell NULL.
func appendArray(dst []byte, a *ArrayValue, cfg *TextConfig) []byte {
	dst = append(dst, '{')
	var scratch []byte
	for i, e := range a.Elems {
		if i > 0 {
			dst = append(dst, ',')
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
	return append(dst, '}')
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

// parseArray reads array_in's syntax for a one-dimensional array: braces,
// elements separated by commas, optionally double-quoted with backslash
// escapes, unquoted NULL for a null element, white space around elements
// ignored. Each element goes through the element type's input function
// and modifier. Multi-dimensional arrays and explicit bounds are not
// supported.
func parseArray(s string, elem Type, cfg *TextConfig) (Datum, error) {
	t := trimSpace(s)
	if strings.HasPrefix(t, "[") {
		return Null, pgerr.New(pgerr.FeatureNotSupported, "arrays with explicit bounds are not supported")
	}
	if !strings.HasPrefix(t, "{") {
		return Null, errMalformedArray(s, `Array value must start with "{" or dimension information.`)
	}
	a := &ArrayValue{Elem: elem}
	i := 1
	skip := func() {
		for i < len(t) && isSpace(t[i]) {
			i++
		}
	}
	skip()
	if i < len(t) && t[i] == '}' {
		i++
		skip()
		if i != len(t) {
			return Null, errMalformedArray(s, "Junk after closing right brace.")
		}
		return NewArray(a), nil
	}
	var buf strings.Builder
	for {
		skip()
		if i >= len(t) {
			return Null, errMalformedArray(s, "Unexpected end of input.")
		}
		if t[i] == '{' {
			return Null, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
		}
		buf.Reset()
		quoted, sawQuote := false, false
		trailing := 0 // unquoted trailing white space to drop
		for ; i < len(t); i++ {
			c := t[i]
			if quoted {
				switch c {
				case '\\':
					if i+1 < len(t) {
						i++
						buf.WriteByte(t[i])
					}
				case '"':
					quoted = false
				default:
					buf.WriteByte(c)
				}
				continue
			}
			if c == ',' || c == '}' {
				break
			}
			closed := sawQuote && !quoted
			switch {
			case isSpace(c):
				if buf.Len() > 0 && !closed {
					buf.WriteByte(c)
					trailing++
				}
			case closed:
				return Null, errMalformedArray(s, "Unexpected array element.")
			case c == '"':
				if buf.Len() > 0 {
					return Null, errMalformedArray(s, "Unexpected array element.")
				}
				quoted, sawQuote = true, true
			case c == '\\':
				if i+1 < len(t) {
					i++
					buf.WriteByte(t[i])
				}
				trailing = 0
			case c == '{':
				return Null, errMalformedArray(s, `Unexpected "{" character.`)
			default:
				buf.WriteByte(c)
				trailing = 0
			}
		}
		if quoted || i >= len(t) {
			return Null, errMalformedArray(s, "Unexpected end of input.")
		}
		text := buf.String()
		text = text[:len(text)-trailing]
		if !sawQuote && strings.EqualFold(text, "null") {
			a.Elems = append(a.Elems, Null)
		} else {
			d, err := ParseText(text, elem, cfg)
			if err != nil {
				return Null, err
			}
			a.Elems = append(a.Elems, d)
		}
		if t[i] == '}' {
			i++
			skip()
			if i != len(t) {
				return Null, errMalformedArray(s, "Junk after closing right brace.")
			}
			return NewArray(a), nil
		}
		i++
	}
}
