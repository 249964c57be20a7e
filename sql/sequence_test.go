package sql

import (
	"math"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/types"
)

func TestSequenceDef(t *testing.T) {
	tests := []struct {
		sql  string
		want catalog.SequenceDef
		err  bool
	}{
		{"CREATE SEQUENCE s", catalog.SequenceDef{Start: 1, Increment: 1, Min: 1, Max: math.MaxInt64}, false},
		{"CREATE SEQUENCE s AS integer", catalog.SequenceDef{Start: 1, Increment: 1, Min: 1, Max: math.MaxInt32}, false},
		{"CREATE SEQUENCE s INCREMENT -1", catalog.SequenceDef{Start: -1, Increment: -1, Min: math.MinInt64, Max: -1}, false},
		{"CREATE SEQUENCE s AS smallint INCREMENT -2", catalog.SequenceDef{Start: -1, Increment: -2, Min: math.MinInt16, Max: -1}, false},
		{"CREATE SEQUENCE s START 5 MINVALUE 0 MAXVALUE 9 CYCLE", catalog.SequenceDef{Start: 5, Increment: 1, Min: 0, Max: 9, Cycle: true}, false},
		{"CREATE SEQUENCE s MAXVALUE 9223372036854775807", catalog.SequenceDef{Start: 1, Increment: 1, Min: 1, Max: math.MaxInt64}, false},
		{"CREATE SEQUENCE s INCREMENT 0", catalog.SequenceDef{}, true},
		{"CREATE SEQUENCE s START 0", catalog.SequenceDef{}, true},
		{"CREATE SEQUENCE s MINVALUE 5 MAXVALUE 5", catalog.SequenceDef{}, true},
		{"CREATE SEQUENCE s AS integer MAXVALUE 3000000000", catalog.SequenceDef{}, true},
		{"CREATE SEQUENCE s AS text", catalog.SequenceDef{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			tree, err := pg_query.Parse(tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			cs := tree.Stmts[0].Stmt.GetCreateSeqStmt()
			got, err := sequenceDef(cs.Options, types.TypeInt8)
			if (err != nil) != tt.err {
				t.Fatalf("error = %v, want error: %v", err, tt.err)
			}
			if err == nil && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
