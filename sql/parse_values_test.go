package sql

import (
	"fmt"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// insertValuesCases are statements the fast path takes (true) or leaves
// to pg_query (false).
var insertValuesCases = []struct {
	sql  string
	fast bool
}{
	{"INSERT INTO r VALUES (1,-2,'a''b'),(3000000000, -1.5, NULL), (true, -2147483648, 1e5);", true},
	{"insert into public.r (a, b) values (DEFAULT, .5)", true},
	{"INSERT INTO r VALUES (2147483647, -2147483647, 0, -0, 007, 1., -.5e-3, 1E+10, 99999999999999999999999)", true},
	{"INSERT INTO r VALUES ('é', 'x\\y', '', 'it''s', 'multi\nline')  ;  ", true},
	{"  INSERT  INTO\tt_1$x\n( a , B ,c_ ) VALUES ( FALSE , Null , 'x' )", true},
	{"INSERT INTO r VALUES ('é', 1), ('ü', -2)", true},
	{"INSERT INTO r VALUES (1)", true},
	{"INSERT INTO r VALUES (1);", true},
	{"INSERT INTO r VALUES (1); SELECT 1", false},
	{"INSERT INTO r VALUES (1) RETURNING *", false},
	{"INSERT INTO r VALUES (1) ON CONFLICT DO NOTHING", false},
	{"INSERT INTO r VALUES (1 + 1)", false},
	{"INSERT INTO r VALUES ('1'::int)", false},
	{"INSERT INTO r VALUES (E'a\\n')", false},
	{"INSERT INTO r VALUES ('a' 'b')", false},
	{"INSERT INTO r VALUES ('a'\n'b')", false},
	{"INSERT INTO r VALUES (- 1)", false},
	{"INSERT INTO r VALUES (+1)", false},
	{"INSERT INTO r VALUES (1_000)", false},
	{"INSERT INTO r VALUES (0x1f)", false},
	{"INSERT INTO r VALUES (1abc)", false},
	{"INSERT INTO r VALUES (1e)", false},
	{"INSERT INTO r VALUES (1 -- one\n)", false},
	{"INSERT INTO r VALUES (/* x */ 1)", false},
	{"INSERT INTO \"R\" VALUES (1)", false},
	{"INSERT INTO user VALUES (1)", false},
	{"INSERT INTO r (select) VALUES (1)", false},
	{"INSERT INTO r AS x VALUES (1)", false},
	{"INSERT INTO r SELECT 1", false},
	{"INSERT INTO r DEFAULT VALUES", false},
	{"INSERT INTO r VALUES (now())", false},
	{"INSERT INTO r VALUES (1),", false},
	{"INSERT INTO r VALUES ()", false},
	{"INSERT INTO rétro VALUES (1)", false},
	{"WITH x AS (SELECT 1) INSERT INTO r VALUES (1)", false},
	{"INSERT INTO r VALUES ('unterminated)", false},
}

// TestParseInsertValues checks that the fast path builds exactly the tree
// pg_query builds, and declines what it does not handle.
func TestParseInsertValues(t *testing.T) {
	for _, tc := range insertValuesCases {
		node, _, ok := parseInsertValues(tc.sql)
		if ok != tc.fast {
			t.Errorf("%q: fast path %v, want %v", tc.sql, ok, tc.fast)
		}
		if ok {
			checkSameTree(t, tc.sql, node)
		}
	}
	// Through parseQuery the statement text is what pg_query's split gives.
	for _, sql := range []string{"INSERT INTO r VALUES (1);", "  INSERT INTO r VALUES (1)  "} {
		raws, err := parseQuery(sql)
		if err != nil || len(raws) != 1 || raws[0].text != "INSERT INTO r VALUES (1)" {
			t.Errorf("parseQuery(%q) = %+v, %v", sql, raws, err)
		}
	}
}

func checkSameTree(t *testing.T, sql string, node *pg_query.Node) {
	t.Helper()
	tree, err := pg_query.Parse(sql)
	if err != nil {
		t.Fatalf("%q: the fast path parsed what pg_query rejects: %v", sql, err)
	}
	if len(tree.Stmts) != 1 || !proto.Equal(tree.Stmts[0].Stmt, node) {
		t.Fatalf("%q: fast path tree\n%s\npg_query\n%s", sql, prototext.Format(node), prototext.Format(tree))
	}
}

// FuzzParseInsertValues checks that whatever the fast path accepts,
// pg_query parses into the same tree.
func FuzzParseInsertValues(f *testing.F) {
	for _, tc := range insertValuesCases {
		f.Add(tc.sql)
	}
	f.Add("INSERT INTO r VALUES " + strings.Repeat("(1,'a',-2.5),", 10) + "(0,'',null)")
	f.Fuzz(func(t *testing.T, sql string) {
		if node, _, ok := parseInsertValues(sql); ok {
			checkSameTree(t, sql, node)
		}
	})
}

// BenchmarkParseInsertValues parses a 1,000-row VALUES list of three
// columns, as bench/refresh's insert sends it.
func BenchmarkParseInsertValues(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("INSERT INTO r VALUES ")
	for id := range 1000 {
		if id > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "(%d,%d,'v%d')", 1_000_000+id, id%1000, id)
	}
	sql := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := parseInsertValues(sql); !ok {
			b.Fatal("declined")
		}
	}
}
