package types

import (
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
)

// maxNameLen is NAMEDATALEN-1: name values keep at most 63 bytes.
const maxNameLen = 63

// truncateName clips s to 63 bytes without splitting a UTF-8 character,
// as namein does.
func truncateName(s string) string {
	if len(s) <= maxNameLen {
		return s
	}
	n := maxNameLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// applyStringTypmod enforces varchar(n) and char(n) as their input
// functions do: a value longer than n characters is an error unless the
// excess is all spaces, which is cut off; char(n) is then blank-padded to
// n characters. explicit selects the cast behaviour instead, which
// truncates silently.
func applyStringTypmod(d Datum, t Type, explicit bool) (Datum, error) {
	n := int(t.Mod)
	s := d.str()
	if l := utf8.RuneCountInString(s); l > n {
		cut := runeOffset(s, n)
		if !explicit && strings.TrimLeft(s[cut:], " ") != "" {
			return Null, pgerr.New(pgerr.StringDataRightTruncation, "value too long for type %s(%d)", t.Family, n)
		}
		s = s[:cut]
	} else if t.Family == Char && l < n {
		s += strings.Repeat(" ", n-l)
	}
	return NewString(t.Family, s), nil
}

// runeOffset returns the byte offset of the n-th character of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
