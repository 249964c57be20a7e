package scram

import (
	"unicode/utf8"

	"github.com/xdg-go/stringprep"
)

// Normalize prepares a password for hashing as PostgreSQL's pg_saslprep
// does (RFC 4013 SASLprep): an ASCII password is used as it is; any other
// is mapped (non-ASCII spaces become spaces, characters such as the soft
// hyphen vanish), NFKC-normalized and checked. Where SASLprep refuses the
// password (invalid UTF-8, a prohibited or unassigned character, mixed
// text directions, nothing left after mapping) PostgreSQL uses the raw
// bytes instead, and so does Normalize, so that any password a client
// sends can be checked. libpq normalizes the same way, so a client and the
// server derive the same key from the same typed password.
func Normalize(password string) string {
	if isASCII(password) || !utf8.ValidString(password) {
		return password
	}
	p, err := stringprep.SASLprep.Prepare(password)
	if err != nil || p == "" {
		return password
	}
	return p
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
