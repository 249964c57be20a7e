package sql

import (
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

// TestCheckEncoding follows PostgreSQL's pg_char_to_encoding: case and
// punctuation are ignored, so asyncpg's quoted 'utf-8' is UTF8.
func TestCheckEncoding(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		code     pgerr.Code
	}{
		{in: "UTF8", want: "UTF8"},
		{in: "utf-8", want: "UTF8"},
		{in: "'utf-8'", want: "UTF8"},
		{in: " Unicode ", want: "UTF8"},
		{in: "utf_8", want: "UTF8"},
		{in: "LATIN1", code: pgerr.FeatureNotSupported},
		{in: "sql_ascii", code: pgerr.FeatureNotSupported},
		{in: "klingon", code: pgerr.InvalidParameterValue},
		{in: "", code: pgerr.InvalidParameterValue},
	} {
		got, err := checkEncoding(tc.in)
		code := pgerr.Code("")
		if err != nil {
			code = pgerr.CodeOf(err)
		}
		if code != tc.code || got != tc.want {
			t.Errorf("checkEncoding(%q) = %q, %v; want %q, code %q", tc.in, got, err, tc.want, tc.code)
		}
	}
}
