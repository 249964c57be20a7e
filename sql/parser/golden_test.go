package parser

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata files")

// A testdata file is a sequence of cases separated by blank lines:
//
//	# comment
//	<directive>
//	<input, one or more lines>
//	----
//	<expected output, without blank lines>
//
// The directives are parse (the statement printed back, then its AST with
// byte positions, or the error), split (the pieces) and lex (the tokens).
type goldenCase struct {
	line      int
	directive string
	input     string
	expected  string
}

func readCases(t *testing.T, path string) []goldenCase {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var cases []goldenCase
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c := goldenCase{line: i + 1, directive: l}
		var in []string
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			in = append(in, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: missing ----", path, c.line)
		}
		var out []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			out = append(out, lines[i])
		}
		c.input, c.expected = strings.Join(in, "\n"), strings.Join(out, "\n")
		cases = append(cases, c)
	}
	return cases
}

func writeCases(t *testing.T, path string, cases []goldenCase) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Keep comments and spacing: replace each case's output in place.
	lines := strings.Split(string(data), "\n")
	var out []string
	ci := 0
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if ci < len(cases) && i+1 == cases[ci].line {
			for i++; lines[i] != "----"; i++ {
				out = append(out, lines[i])
			}
			out = append(out, "----")
			if cases[ci].expected != "" {
				out = append(out, strings.Split(cases[ci].expected, "\n")...)
			}
			for i+1 < len(lines) && lines[i+1] != "" {
				i++
			}
			ci++
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases := readCases(t, path)
			for i := range cases {
				c := &cases[i]
				got := runCase(t, path, c)
				if strings.Contains(got, "\n\n") {
					t.Fatalf("%s:%d: output has a blank line, which the format cannot hold", path, c.line)
				}
				if *rewrite {
					c.expected = got
				} else if got != c.expected {
					t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", path, c.line, c.directive, c.input, got, c.expected)
				}
			}
			if *rewrite {
				writeCases(t, path, cases)
			}
		})
	}
}

func runCase(t *testing.T, path string, c *goldenCase) string {
	switch c.directive {
	case "parse":
		stmt, ok, err := Parse(c.input)
		switch {
		case err != nil:
			if !ok {
				t.Errorf("%s:%d: error with ok=false", path, c.line)
			}
			return formatError(err)
		case !ok:
			return "not ours"
		}
		checkRoundTrip(t, fmt.Sprintf("%s:%d", path, c.line), stmt)
		return stmt.String() + "\n" + strings.TrimRight(dump(stmt), "\n")
	case "split":
		var b strings.Builder
		for _, p := range Split(c.input) {
			fmt.Fprintf(&b, "%d: %q\n", p.Offset, p.Text)
		}
		return strings.TrimRight(b.String(), "\n")
	case "lex":
		return lexDump(c.input)
	}
	t.Fatalf("%s:%d: unknown directive %q", path, c.line, c.directive)
	return ""
}

// formatError prints an error with its SQLSTATE, character position and
// hint.
func formatError(err error) string {
	e := pgerr.As(err)
	if e == nil {
		return "error (not a *pgerr.Error): " + err.Error()
	}
	s := fmt.Sprintf("error %s at %d: %s", e.Code, e.Position, e.Message)
	if e.Hint != "" {
		s += "\nhint: " + e.Hint
	}
	return s
}

// lexDump prints one token per line: kind, byte span, value.
func lexDump(src string) string {
	l := lexer{src: src}
	var b strings.Builder
	for {
		t, err := l.next()
		if err != nil {
			b.WriteString(formatError(err))
			return b.String()
		}
		if t.kind == tokEOF {
			b.WriteString("EOF")
			return b.String()
		}
		fmt.Fprintf(&b, "%s %d-%d %q", tokenNames[t.kind], t.start, t.end, src[t.start:t.end])
		if t.kind == tokString || t.kind == tokQIdent {
			fmt.Fprintf(&b, " = %q", t.val)
		}
		b.WriteByte('\n')
	}
}

var tokenNames = map[tokenKind]string{
	tokIdent: "ident", tokQIdent: "qident", tokString: "string", tokBitString: "bitstring",
	tokInt: "int", tokNumber: "number", tokParam: "param", tokOp: "op",
	tokUString: "ustring", tokUIdent: "uident",
}
