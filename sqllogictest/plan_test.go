//go:build cgo

package sqllogictest

import (
	"reflect"
	"strings"
	"testing"
)

func TestAnalyzeQuery(t *testing.T) {
	tests := []struct {
		sql   string
		sort  SortMode
		ncols int
		want  queryInfo
	}{
		{"SELECT a FROM t1", RowSort, 1, queryInfo{relations: []string{"t1"}, body: "SELECT a FROM t1"}},
		{"SELECT 1", NoSort, 1, queryInfo{fallback: "reads no relation"}},
		{"VALUES (1)", NoSort, 1, queryInfo{fallback: "reads no relation"}},
		{"WITH c AS (SELECT a FROM t1) SELECT * FROM c, t2", RowSort, 2, queryInfo{relations: []string{"t1", "t2"}, body: "WITH c AS (SELECT a FROM t1) SELECT * FROM c, t2"}},
		{"SELECT a FROM s.t1 JOIN t2 ON true WHERE a IN (SELECT b FROM t3)", RowSort, 1, queryInfo{relations: []string{"t1", "t2", "t3"}, body: "SELECT a FROM s.t1 JOIN t2 ON true WHERE a IN (SELECT b FROM t3)"}},
		{"SELECT random() FROM t1", RowSort, 1, queryInfo{fallback: "volatile function random"}},
		{"SELECT a FROM t1 WHERE d < now()", RowSort, 1, queryInfo{fallback: "volatile function now"}},
		{"SELECT CURRENT_DATE FROM t1", RowSort, 1, queryInfo{fallback: "time-dependent value"}},
		{"INSERT INTO t1 VALUES (1) RETURNING a", NoSort, 1, queryInfo{fallback: "not a SELECT"}},
		{"SELECT FROM", NoSort, 1, queryInfo{fallback: "does not parse"}},
		// rowsort: the ORDER BY is dropped.
		{"SELECT a, b FROM t1 ORDER BY b", RowSort, 2, queryInfo{relations: []string{"t1"}, body: "SELECT a, b FROM t1"}},
		// rowsort with LIMIT: a top-k view, kept as it is.
		{"SELECT a FROM t1 ORDER BY a LIMIT 3", ValueSort, 1, queryInfo{relations: []string{"t1"}, body: "SELECT a FROM t1 ORDER BY a LIMIT 3"}},
		// nosort: the ORDER BY moves to the read.
		{"SELECT a, b AS x FROM t1 ORDER BY x DESC, 1 NULLS FIRST", NoSort, 2, queryInfo{relations: []string{"t1"}, body: "SELECT a, b AS x FROM t1", readOrder: "ORDER BY c2 DESC, c1 NULLS FIRST"}},
		{"SELECT t1.a, b FROM t1 ORDER BY t1.a", NoSort, 2, queryInfo{relations: []string{"t1"}, body: "SELECT t1.a, b FROM t1", readOrder: "ORDER BY c1"}},
		{"SELECT a FROM t1 UNION SELECT b FROM t2 ORDER BY a", NoSort, 1, queryInfo{relations: []string{"t1", "t2"}, body: "SELECT a FROM t1 UNION SELECT b FROM t2", readOrder: "ORDER BY c1"}},
		{"SELECT a, b FROM t1 ORDER BY b LIMIT 2", NoSort, 2, queryInfo{relations: []string{"t1"}, body: "SELECT a, b FROM t1 ORDER BY b LIMIT 2", readOrder: "ORDER BY c2"}},
		{"SELECT a FROM t1 ORDER BY b", NoSort, 1, queryInfo{fallback: "nosort ORDER BY on values that are not output columns"}},
		{"SELECT a + 1 FROM t1 ORDER BY a + 1", NoSort, 1, queryInfo{fallback: "nosort ORDER BY on values that are not output columns"}},
		{"SELECT * FROM t1 ORDER BY a", NoSort, 2, queryInfo{fallback: "nosort ORDER BY on values that are not output columns"}},
		{"SELECT *, a FROM t1 ORDER BY 3", NoSort, 3, queryInfo{relations: []string{"t1"}, body: "SELECT *, a FROM t1", readOrder: "ORDER BY c3"}},
		{"SELECT a, a FROM t1 ORDER BY a", NoSort, 2, queryInfo{fallback: "nosort ORDER BY on values that are not output columns"}},
		{"SELECT DISTINCT ON (a) a, b FROM t1 ORDER BY a, b", RowSort, 2, queryInfo{fallback: "DISTINCT ON with ORDER BY"}},
		{"SELECT DISTINCT a FROM t1 ORDER BY a", RowSort, 1, queryInfo{relations: []string{"t1"}, body: "SELECT DISTINCT a FROM t1"}},
	}
	for _, tt := range tests {
		if got := analyzeQuery(tt.sql, tt.sort, tt.ncols); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("analyzeQuery(%q, %v)\n got %+v\nwant %+v", tt.sql, tt.sort, got, tt.want)
		}
	}
}

func TestPlanViews(t *testing.T) {
	recs := parseAll(t, strings.Join([]string{
		"statement ok\nCREATE TABLE t1(a INT)",                   // 0
		"statement ok\nINSERT INTO t1 VALUES (1)",                // 1
		"query I rowsort\nSELECT a FROM t1\n----\n1",             // 2: view before record 1
		"statement ok\nCREATE TABLE t2(b INT)",                   // 3
		"statement ok\nCREATE VIEW v AS SELECT a, b FROM t1, t2", // 4
		"statement ok\nINSERT INTO t2 VALUES (2)",                // 5
		"query II rowsort\nSELECT * FROM v\n----\n1\n2",          // 6: view before record 5
		"statement ok\nBEGIN",                                    // 7
		"statement ok\nDROP TABLE t2 CASCADE",                    // 8
		"statement ok\nCREATE TABLE t2(b INT)",                   // 9
		"statement ok\nCOMMIT",                                   // 10
		"query I rowsort\nSELECT b FROM t2",                      // 11: view before record 11, after the transaction
		"query I rowsort\nSELECT * FROM nosuch",                  // 12: unknown relation: just before the query
		"query I rowsort\nSELECT 1",                              // 13: no relation
		"query error\nSELECT * FROM t1",                          // 14
		"skipif postgresql\nquery I rowsort\nSELECT a FROM t1",   // 15: skipped
		"statement ok\nBEGIN",                                    // 16
		"query I rowsort\nSELECT a FROM t1",                      // 17: inside a transaction
		"statement ok\nCOMMIT",                                   // 18
		"halt",                                                   // 19
		"query I rowsort\nSELECT a FROM t1",                      // 20: after halt
	}, "\n\n"))
	p := planViews(recs, DefaultEngine)
	wantAt := map[int]int{2: 1, 6: 5, 11: 11, 12: 12}
	for i, at := range wantAt {
		v := p.views[i]
		if v == nil {
			t.Errorf("record %d has no view (fallback %q)", i, p.fallbacks[i])
			continue
		}
		if v.at != at {
			t.Errorf("record %d: view created before record %d, want %d", i, v.at, at)
		}
	}
	if len(p.views) != len(wantAt) {
		t.Errorf("%d views planned, want %d", len(p.views), len(wantAt))
	}
	wantFallbacks := map[int]string{13: "reads no relation", 14: "expects an error", 17: "inside a transaction block"}
	if !reflect.DeepEqual(p.fallbacks, wantFallbacks) {
		t.Errorf("fallbacks = %v, want %v", p.fallbacks, wantFallbacks)
	}
	if got, want := p.views[6].create, "CREATE MATERIALIZED VIEW slt_mv_2 (c1, c2) AS SELECT * FROM v"; got != want {
		t.Errorf("create = %q, want %q", got, want)
	}
	if got, want := p.views[6].read, "SELECT * FROM slt_mv_2"; got != want {
		t.Errorf("read = %q, want %q", got, want)
	}
}
