// Command scanoracle regenerates ../scan_oracle.tsv: SQL fragments and what
// pg_query's scanner (PostgreSQL 17's scan.l, the one the rest of streamdb
// parses with) makes of them, for scan_oracle_test.go to compare the
// lexer against without cgo. Run it from the package directory:
//
//	CGO_ENABLED=1 go run ./testdata/scanoracle
//
// Each output line is a Go-quoted input, a tab, and either "tokens" with the
// byte spans of the tokens (comments left out) or "error", the 1-based
// character position (0 when pg_query gives none) and the Go-quoted message. The inputs are the curated ones below
// and random strings over an alphabet of lexically interesting pieces, from
// a fixed seed so that the file only changes when this program does.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"
)

var curated = []string{
	`SELECT Foo, "Foo", "a""b", foo$bar, _x1, é`,
	`'it''s' E'a\nb\'c' e'\x41\101\u00e9\U0001F600'`,
	"'a'\n  'b'\n'c' 'd'",
	`$$dollar 'quoted'$$ $tag$ a $$ b $ta $tag$ $1 $ x`,
	`1 1.5 .5 1. 1e10 1.5E-3 1_000 0x1F 0o17 0b101 0X_ff 1..2`,
	`a=-1 a<>b a!=b a::int a:=b x||'y' 1+-2 @-1 ~~* a=>b`,
	`a /* outer /* nested */ still */ b -- tail`,
	`B'0101' X'1F' U&'d\0061t' U&"x" N'nat'`,
	`'abc`, `E'abc`, `"abc`, `""`, `$$abc`, `$a$x$b$`, `1 /* abc`, `B'01`, `X'1`,
	`123abc`, `1.5e`, `1e+`, `1__0`, `0x`, `0x_`, `0xg`, `0o8`, `0b2`, `$1abc`, `00e9$`, `1_2$$`,
	`E'\u00'`, `E'\uD800'`, `E'\uD800\n'`, `E'\uD800x'`, `E'\uD800`, `E'\uDC00'`,
	`E'\uD83D\uDE00'`, `E'\u0000'`, `E'\U00110000'`, `E'\UD800DC00'`, `E'\xff'`, `E'\0'`, `E'\xc3('`,
	`a ` + strings.Repeat("=", 64) + ` b`,
	`SELECT 'é' x x`, `select 1 as "é" 'x`,
	"'a' -- c\n'b'",
}

var alphabet = []string{
	"'", "\"", "$", "$$", "$a$", "E'", "e'", "B'", "X'", "N'", "U&'", "U&\"", "\\",
	"\\u", "\\U", "\\x", "\\0", "D800", "DC00", "00e9", "0", "1", "9", "_", ".", "..",
	"e", "E", "+", "-", "x", "0x", "0o", "0b", "a", "Z", "é", " ", "\n", "\t", "--",
	"/*", "*/", "(", ")", ";", ",", "=", "<", ">", "!", "@", "#", "~", "|", "&", "`",
	"?", "%", "^", "*", "/", ":", "::", "[", "]", "{", "\r", "\f", "\v", "ff", "c3",
	"''", "\"\"",
}

func main() {
	r := rand.New(rand.NewSource(17))
	inputs := append([]string(nil), curated...)
	for len(inputs) < 2500 {
		var b strings.Builder
		for range 1 + r.Intn(10) {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	f, err := os.Create("testdata/scan_oracle.tsv")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriter(f)
	for _, in := range inputs {
		if !utf8.ValidString(in) {
			continue
		}
		fmt.Fprintf(w, "%s\t%s\n", strconv.Quote(in), scan(in))
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
}

func scan(in string) string {
	res, err := pg_query.Scan(in)
	if err != nil {
		var pe *pgparser.Error
		if !errors.As(err, &pe) {
			return "error 0 " + strconv.Quote(err.Error())
		}
		return fmt.Sprintf("error %d %s", pe.Cursorpos, strconv.Quote(pe.Message))
	}
	out := []string{"tokens"}
	for _, t := range res.Tokens {
		if t.Token == pg_query.Token_SQL_COMMENT || t.Token == pg_query.Token_C_COMMENT {
			continue
		}
		out = append(out, fmt.Sprintf("%d-%d", t.Start, t.End))
	}
	return strings.Join(out, " ")
}
