package sqllogictest

import (
	"reflect"
	"slices"
	"testing"
)

func TestSniffDDL(t *testing.T) {
	n := func(parts ...string) objectName { return objectName(parts) }
	tests := []struct {
		sql  string
		want ddl
	}{
		{"CREATE TABLE t1(a INTEGER)", ddl{op: ddlCreate, kind: "TABLE", names: []objectName{n("t1")}, body: -1}},
		{"create temp table if not exists S.\"MixedCase\" (a int)", ddl{op: ddlCreate, kind: "TABLE", names: []objectName{n("s", "MixedCase")}, body: -1}},
		{"CREATE TABLE t2 AS SELECT * FROM t1", ddl{op: ddlCreate, kind: "TABLE", names: []objectName{n("t2")}, body: 18}},
		{"CREATE TABLE g (a int GENERATED ALWAYS AS (1) STORED)", ddl{op: ddlCreate, kind: "TABLE", names: []objectName{n("g")}, body: -1}},
		{"CREATE OR REPLACE VIEW v (x) AS SELECT a FROM t1", ddl{op: ddlCreate, kind: "VIEW", names: []objectName{n("v")}, body: 31}},
		{"CREATE MATERIALIZED VIEW mv AS SELECT 1", ddl{op: ddlCreate, kind: "MATERIALIZED VIEW", names: []objectName{n("mv")}, body: 30}},
		{"CREATE SOURCE s FROM KAFKA", ddl{op: ddlCreate, kind: "SOURCE", names: []objectName{n("s")}, body: -1}},
		{"CREATE INDEX i ON t1(a)", ddl{body: -1}},
		{"CREATE UNIQUE INDEX i ON t1(a)", ddl{body: -1}},
		{"DROP TABLE IF EXISTS a, b.c CASCADE", ddl{op: ddlDrop, kind: "TABLE", names: []objectName{n("a"), n("b", "c")}, body: -1}},
		{"DROP MATERIALIZED VIEW mv", ddl{op: ddlDrop, kind: "MATERIALIZED VIEW", names: []objectName{n("mv")}, body: -1}},
		{"DROP INDEX i", ddl{body: -1}},
		{"ALTER TABLE ONLY t1 ADD COLUMN b int", ddl{op: ddlAlter, kind: "TABLE", names: []objectName{n("t1")}, body: -1}},
		{"ALTER TABLE t1 RENAME TO t9", ddl{op: ddlAlter, kind: "TABLE", names: []objectName{n("t1")}, renamed: n("t9"), body: -1}},
		{"ALTER TABLE t1 RENAME COLUMN a TO b", ddl{op: ddlAlter, kind: "TABLE", names: []objectName{n("t1")}, body: -1}},
		{"BEGIN", ddl{op: ddlBegin, body: -1}},
		{"start transaction", ddl{op: ddlBegin, body: -1}},
		{"COMMIT", ddl{op: ddlEnd, body: -1}},
		{"ROLLBACK", ddl{op: ddlEnd, body: -1}},
		{"ROLLBACK TO SAVEPOINT s", ddl{body: -1}},
		{"-- comment\nCREATE TABLE /* x */ t3(a int)", ddl{op: ddlCreate, kind: "TABLE", names: []objectName{n("t3")}, body: -1}},
		{"INSERT INTO t1 VALUES (1)", ddl{body: -1}},
		{"CREATE TABLE", ddl{body: -1}},
	}
	for _, tt := range tests {
		if got := sniffDDL(tt.sql); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("sniffDDL(%q)\n got %+v\nwant %+v", tt.sql, got, tt.want)
		}
	}
}

func TestObjectNameSQL(t *testing.T) {
	name := objectName{"s", `we"ird`}
	if got, want := name.sql(), `"s"."we""ird"`; got != want {
		t.Errorf("sql() = %s, want %s", got, want)
	}
}

func TestSplitStatements(t *testing.T) {
	tests := map[string][]string{
		"SELECT 1; SELECT 2":                  {"SELECT 1", "SELECT 2"},
		"SELECT ';'; SELECT $$;$$;":           {"SELECT ';'", "SELECT $$;$$"},
		"SELECT 1 -- ;\n; ;SELECT E'\\';'":    {"SELECT 1 -- ;", "SELECT E'\\';'"},
		`SELECT "a;b" FROM t /* ; */`:         {`SELECT "a;b" FROM t /* ; */`},
		"":                                    nil,
		"SELECT $1; SELECT $tag$ x;y $tag$ z": {"SELECT $1", "SELECT $tag$ x;y $tag$ z"},
	}
	for in, want := range tests {
		if got := splitStatements(in); !slices.Equal(got, want) {
			t.Errorf("splitStatements(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTopLevelOrderBy(t *testing.T) {
	tests := map[string]int{
		"SELECT a FROM t ORDER BY a":                                        16,
		"SELECT a FROM t":                                                   -1,
		"SELECT (SELECT b FROM u ORDER BY b LIMIT 1) FROM t":                -1,
		"SELECT rank() OVER (ORDER BY a) FROM t ORDER BY 1":                 39,
		"SELECT a FROM t WHERE b = 'order by' ORDER BY a":                   37,
		"SELECT a FROM t UNION SELECT b FROM u order\n  by 1 DESC":          38,
		"SELECT string_agg(a, ',' ORDER BY a) FROM t GROUP BY b ORDER BY b": 55,
	}
	for in, want := range tests {
		if got := topLevelOrderBy(in); got != want {
			t.Errorf("topLevelOrderBy(%q) = %d, want %d", in, got, want)
		}
	}
}
