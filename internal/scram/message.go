package scram

import (
	"fmt"

	"github.com/streamdb/streamdb/pgerr"
)

// A SCRAM message is a comma-separated list of attributes, each a letter,
// '=' and a value. attrs reads one message from the front, as the
// read_attr_value and read_any_attr of PostgreSQL's auth-scram.c do, with
// their errors.
type attrs struct {
	s string
}

// peek returns the next byte, 0 at the end (where PostgreSQL's C string
// has its terminator).
func (a *attrs) peek() byte {
	if a.s == "" {
		return 0
	}
	return a.s[0]
}

// value reads the attribute named attr and returns its value.
func (a *attrs) value(attr byte) (string, error) {
	if c := a.peek(); c != attr {
		return "", malformed("Expected attribute \"%c\" but found \"%s\".", attr, sanitize(c))
	}
	return a.rest(attr)
}

// any reads whatever attribute comes next and returns its name and value.
func (a *attrs) any() (byte, string, error) {
	c := a.peek()
	if c == 0 {
		return 0, "", malformed("Attribute expected, but found end of string.")
	}
	if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
		return 0, "", malformed("Attribute expected, but found invalid character \"%s\".", sanitize(c))
	}
	v, err := a.rest(c)
	return c, v, err
}

// rest reads "=value" after the attribute name and the comma behind it.
func (a *attrs) rest(attr byte) (string, error) {
	if len(a.s) < 2 || a.s[1] != '=' {
		return "", malformed("Expected character \"=\" for attribute \"%c\".", attr)
	}
	s := a.s[2:]
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			a.s = s[i+1:]
			return s[:i], nil
		}
	}
	a.s = ""
	return s, nil
}

// malformed is PostgreSQL's error for a SCRAM message it cannot parse.
func malformed(detail string, args ...any) error {
	return &pgerr.Error{
		Code:    pgerr.ProtocolViolation,
		Message: "malformed SCRAM message",
		Detail:  fmt.Sprintf(detail, args...),
	}
}

// sanitize shows a byte in an error as PostgreSQL's sanitize_char does:
// quoted when printable, in hex otherwise.
func sanitize(c byte) string {
	if 0x21 <= c && c <= 0x7e {
		return fmt.Sprintf("'%c'", c)
	}
	return fmt.Sprintf("0x%02x", c)
}

// printable reports whether a nonce has only the characters RFC 5802
// allows: printable ASCII other than ','.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e || s[i] == ',' {
			return false
		}
	}
	return true
}

// hasNUL reports whether a message holds a zero byte, which PostgreSQL's
// C strings cannot carry.
func hasNUL(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}
