package parser

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
)

// allowedCodes are the SQLSTATEs Parse may return (see the package doc).
var allowedCodes = map[pgerr.Code]bool{
	pgerr.SyntaxError:              true,
	pgerr.FeatureNotSupported:      true,
	pgerr.InvalidParameterValue:    true,
	pgerr.InvalidEscapeSequence:    true,
	pgerr.CharacterNotInRepertoire: true,
}

// FuzzParse checks that Parse never panics, that its errors carry an
// allowed SQLSTATE and a position inside the input (or just past its end),
// that whatever it parses prints back to an equal statement, and that Split
// returns pieces of the input in order.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, path := range files {
		for _, c := range readCases(&testing.T{}, path) {
			f.Add(c.input)
		}
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmt, ok, err := Parse(sql)
		switch {
		case err != nil:
			checkError(t, sql, ok, err)
		case ok:
			checkRoundTrip(t, "fuzz", stmt)
		}
		end := 0
		for _, p := range Split(sql) {
			if p.Offset < end || p.Text == "" || p.Offset+len(p.Text) > len(sql) || sql[p.Offset:p.Offset+len(p.Text)] != p.Text {
				t.Fatalf("bad piece %+v of %q", p, sql)
			}
			end = p.Offset + len(p.Text)
		}
	})
}

func checkError(t *testing.T, sql string, ok bool, err error) {
	t.Helper()
	e := pgerr.As(err)
	if !ok || e == nil {
		t.Fatalf("Parse(%q): ok=%v err=%#v", sql, ok, err)
	}
	if !allowedCodes[e.Code] {
		t.Fatalf("Parse(%q): code %s: %v", sql, e.Code, e)
	}
	if e.Position < 1 || e.Position > utf8.RuneCountInString(sql)+1 {
		t.Fatalf("Parse(%q): position %d out of range: %v", sql, e.Position, e)
	}
	if strings.TrimSpace(e.Message) == "" {
		t.Fatalf("Parse(%q): empty message", sql)
	}
}

// FuzzLex checks that the raw mode Split uses finds the same token
// boundaries as the full lexer wherever the full lexer succeeds.
func FuzzLex(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, path := range files {
		for _, c := range readCases(&testing.T{}, path) {
			f.Add(c.input)
		}
	}
	f.Fuzz(func(t *testing.T, sql string) {
		full, raw := lexer{src: sql}, lexer{src: sql, raw: true}
		for {
			a, err := full.next()
			if err != nil {
				if err.Position < 1 || err.Position > utf8.RuneCountInString(sql)+1 || !allowedCodes[err.Code] {
					t.Fatalf("lexing %q: bad error %#v", sql, err)
				}
				return
			}
			b, rerr := raw.next()
			if rerr != nil || a.kind != b.kind || a.start != b.start || a.end != b.end {
				t.Fatalf("lexing %q: full %+v, raw %+v (%v)", sql, a, b, rerr)
			}
			if a.kind == tokEOF {
				return
			}
		}
	})
}
