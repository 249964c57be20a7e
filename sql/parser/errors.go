package parser

import (
	"fmt"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
)

// Pos is a byte offset into the text given to Parse. The AST keeps byte
// offsets because slicing the text with them is free; CharPosition turns one
// into the 1-based character position that PostgreSQL errors carry.
type Pos int

// CharPosition returns the 1-based character position of p in text, the
// unit of pgerr.Error.Position. A caller that parsed a Piece of a larger
// query passes the whole query and p+Pos(piece.Offset).
func (p Pos) CharPosition(text string) int {
	off := int(p)
	if off < 0 {
		return 0
	}
	if off > len(text) {
		off = len(text)
	}
	return utf8.RuneCountInString(text[:off]) + 1
}

// errorAt returns an error with the given code whose position is the byte
// offset off of src.
func errorAt(src string, off int, code pgerr.Code, format string, args ...any) *pgerr.Error {
	e := pgerr.New(code, format, args...)
	e.Position = Pos(off).CharPosition(src)
	return e
}

// nearError returns PostgreSQL's scanner-style error: the message followed
// by `at or near "text"`, where text is the offending token as written.
func nearError(src string, off int, msg, text string) *pgerr.Error {
	return errorAt(src, off, pgerr.SyntaxError, "%s", fmt.Sprintf(`%s at or near "%s"`, msg, text))
}

// endError returns `<msg> at end of input`, positioned just past the last
// character as PostgreSQL does.
func endError(src string, msg string) *pgerr.Error {
	return errorAt(src, len(src), pgerr.SyntaxError, "%s at end of input", msg)
}
