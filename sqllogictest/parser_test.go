package sqllogictest

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// parseAll parses text into records, failing the test on a read error.
func parseAll(t testing.TB, text string) []*Record {
	t.Helper()
	p := NewParser(strings.NewReader(text))
	var recs []*Record
	for {
		rec, err := p.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// dump renders records for golden files, one field per line.
func dump(recs []*Record) string {
	var sb strings.Builder
	kinds := map[Kind]string{
		KindInvalid: "invalid", KindStatement: "statement", KindQuery: "query", KindSimple: "simple",
		KindHashThreshold: "hash-threshold", KindHalt: "halt", KindMode: "mode", KindSleep: "sleep",
	}
	for _, r := range recs {
		fmt.Fprintf(&sb, "%s line %d-%d", kinds[r.Kind], r.Line, r.EndLine)
		for _, c := range r.Conditions {
			fmt.Fprintf(&sb, " only=%v:%s", c.Only, c.Engine)
		}
		sb.WriteByte('\n')
		field := func(name string, v any, show bool) {
			if show {
				fmt.Fprintf(&sb, "  %s: %v\n", name, v)
			}
		}
		field("sql", fmt.Sprintf("%q", r.SQL), r.SQL != "")
		field("error", fmt.Sprintf("code=%q pattern=%q", r.ErrorCode, r.ErrorPattern), r.ExpectError)
		field("count", r.Count, r.Count >= 0)
		field("types", r.Types+" "+r.Sort.String()+" "+r.Label, r.Types != "")
		field("sep", r.SepLine, r.SepLine != 0)
		field("expected", fmt.Sprintf("%q", r.Expected), r.Expected != nil)
		field("threshold", r.Threshold, r.Kind == KindHashThreshold)
		field("word", r.Word, r.Word != "")
		field("duration", r.Duration, r.Duration != 0)
		field("problem", r.Problem, r.Problem != "")
	}
	return sb.String()
}

func TestParserGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/parser/*.slt")
	if err != nil || len(files) == 0 {
		t.Fatal("no golden inputs", err)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := dump(parseAll(t, string(data)))
			golden := strings.TrimSuffix(in, ".slt") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("parse of %s differs from %s (run with -update to accept):\n%s", in, golden, got)
			}
		})
	}
}

// TestParserCRLF checks that CRLF files parse exactly like LF files, as
// most of the index/ corpus is CRLF.
func TestParserCRLF(t *testing.T) {
	data, err := os.ReadFile("testdata/parser/tricky.slt")
	if err != nil {
		t.Fatal(err)
	}
	lf := parseAll(t, string(data))
	crlf := parseAll(t, strings.ReplaceAll(string(data), "\n", "\r\n"))
	if !reflect.DeepEqual(lf, crlf) {
		t.Errorf("CRLF parse differs:\nLF:\n%s\nCRLF:\n%s", dump(lf), dump(crlf))
	}
}

func TestParserRecords(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Record
	}{{
		name: "last record without final newline",
		text: "statement ok\nSELECT 1",
		want: []Record{{Kind: KindStatement, Line: 1, EndLine: 2, SQL: "SELECT 1", Count: -1}},
	}, {
		name: "white-space-only line separates records",
		text: "statement ok\nSELECT 1\n  \t \nstatement ok\nSELECT 2\n",
		want: []Record{
			{Kind: KindStatement, Line: 1, EndLine: 2, SQL: "SELECT 1", Count: -1},
			{Kind: KindStatement, Line: 4, EndLine: 5, SQL: "SELECT 2", Count: -1},
		},
	}, {
		name: "query without results and without separator",
		text: "query I nosort\nSELECT 1 WHERE false\n",
		want: []Record{{Kind: KindQuery, Line: 1, EndLine: 2, SQL: "SELECT 1 WHERE false", Types: "I", Count: -1}},
	}, {
		name: "query with separator and no results",
		text: "query I nosort\nSELECT 1 WHERE false\n----\n\n",
		want: []Record{{Kind: KindQuery, Line: 1, EndLine: 3, SepLine: 3, SQL: "SELECT 1 WHERE false", Types: "I", Count: -1}},
	}, {
		name: "statement error with pgcode only",
		text: "statement error pgcode 23505\nINSERT INTO t VALUES (1)\n",
		want: []Record{{Kind: KindStatement, Line: 1, EndLine: 2, SQL: "INSERT INTO t VALUES (1)", ExpectError: true, ErrorCode: "23505", Count: -1}},
	}, {
		name: "unknown record type is kept as invalid",
		text: "frobnicate\nSELECT 1\n\nstatement ok\nSELECT 2\n",
		want: []Record{
			{Kind: KindInvalid, Line: 1, EndLine: 2, Count: -1, Problem: `unknown record type "frobnicate"`},
			{Kind: KindStatement, Line: 4, EndLine: 5, SQL: "SELECT 2", Count: -1},
		},
	}, {
		name: "bad type character",
		text: "query IX\nSELECT 1, 2\n----\n1\n2\n",
		want: []Record{{Kind: KindInvalid, Line: 1, EndLine: 5, Types: "IX", Count: -1, Problem: "unknown type character 'X' in type string"}},
	}, {
		name: "statement without SQL does not swallow the next record",
		text: "statement ok\n\nstatement ok\nSELECT 2\n",
		want: []Record{
			{Kind: KindInvalid, Line: 1, EndLine: 1, Count: -1, Problem: "statement without SQL"},
			{Kind: KindStatement, Line: 3, EndLine: 4, SQL: "SELECT 2", Count: -1},
		},
	}, {
		name: "bad pgcode",
		text: "statement error pgcode 123\nSELECT 1\n",
		want: []Record{{Kind: KindInvalid, Line: 1, EndLine: 2, ExpectError: true, Count: -1, Problem: `pgcode needs a five-character SQLSTATE, not "123"`}},
	}, {
		name: "condition at end of file",
		text: "skipif postgresql\n",
		want: []Record{{Kind: KindInvalid, Line: 1, EndLine: 1, Count: -1, Conditions: []Condition{{Engine: "postgresql"}}, Problem: "condition without a record"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseAll(t, tt.text)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d records, want %d:\n%s", len(got), len(tt.want), dump(got))
			}
			for i := range got {
				if !reflect.DeepEqual(*got[i], tt.want[i]) {
					t.Errorf("record %d:\n got %+v\nwant %+v", i, *got[i], tt.want[i])
				}
			}
		})
	}
}

func TestSkipped(t *testing.T) {
	tests := []struct {
		conds []Condition
		want  bool
	}{
		{nil, false},
		{[]Condition{{Engine: "postgresql"}}, true},
		{[]Condition{{Engine: "PostgreSQL"}}, true},
		{[]Condition{{Engine: "mysql"}}, false},
		{[]Condition{{Only: true, Engine: "postgresql"}}, false},
		{[]Condition{{Only: true, Engine: "sqlite"}}, true},
		{[]Condition{{Engine: "mysql"}, {Only: true, Engine: "sqlite"}}, true},
	}
	for _, tt := range tests {
		r := &Record{Conditions: tt.conds}
		if got := r.Skipped("postgresql"); got != tt.want {
			t.Errorf("Skipped(%+v) = %v, want %v", tt.conds, got, tt.want)
		}
	}
}

// TestParserCorpus parses the whole SQLite corpus and checks the counts
// its SOURCE.md gives for engine postgresql: 264,139 records run and 17,905
// skipped by conditions. The runner also counts the 75 records after the
// halt of evidence/slt_lang_aggfunc.test as skipped, which SOURCE.md does
// not.
func TestParserCorpus(t *testing.T) {
	dir := CorpusDir()
	if dir == "" {
		t.Skip("SQLite sqllogictest corpus not found: set SLT_CORPUS or place it at ../shared/sqllogictest/sqlite")
	}
	files, err := ExpandPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	run, skipped, afterHalt := 0, 0, 0
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p := NewParser(f)
		halted := false
		for {
			rec, err := p.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if rec.Kind == KindInvalid {
				t.Errorf("%s:%d: %s", path, rec.Line, rec.Problem)
			}
			switch {
			case rec.Skipped(DefaultEngine):
				if rec.Kind.Runnable() {
					skipped++
				}
			case halted:
				if rec.Kind.Runnable() {
					afterHalt++
				}
			case rec.Kind == KindHalt:
				halted = true
			case rec.Kind.Runnable():
				run++
			}
		}
		f.Close()
	}
	if run != 264139 || skipped != 17905 || afterHalt != 75 {
		t.Errorf("corpus: %d run, %d skipped, %d after halt; want 264139, 17905, 75", run, skipped, afterHalt)
	}
}

func FuzzParser(f *testing.F) {
	if data, err := os.ReadFile("testdata/parser/tricky.slt"); err == nil {
		f.Add(string(data))
	}
	f.Add("query I\nSELECT 1\n----\n1\n")
	f.Add("skipif x\nonlyif y\nhalt\r\n")
	f.Fuzz(func(t *testing.T, text string) {
		p := NewParser(strings.NewReader(text))
		last := 0
		for {
			rec, err := p.Next()
			if err != nil {
				return
			}
			if rec.Line <= last || rec.EndLine < rec.Line || rec.SepLine != 0 && (rec.SepLine < rec.Line || rec.SepLine > rec.EndLine) {
				t.Fatalf("bad line numbers: last %d, record %+v", last, rec)
			}
			if rec.Kind == KindInvalid && rec.Problem == "" {
				t.Fatalf("invalid record without a problem: %+v", rec)
			}
			last = rec.EndLine
		}
	})
}

func BenchmarkParser(b *testing.B) {
	dir := CorpusDir()
	if dir == "" {
		b.Skip("SQLite sqllogictest corpus not found")
	}
	data, err := os.ReadFile(filepath.Join(dir, "index", "random", "10", "slt_good_0.test"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	records := 0
	for b.Loop() {
		p := NewParser(strings.NewReader(string(data)))
		for {
			if _, err := p.Next(); err != nil {
				break
			}
			records++
		}
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}
