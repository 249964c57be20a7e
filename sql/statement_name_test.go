package sql

import (
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

func TestStatementName(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"CREATE ROLE bob", "CREATE ROLE"},
		{"ALTER ROLE bob SUPERUSER", "ALTER ROLE"},
		{"ALTER TABLE t RENAME TO u", "ALTER TABLE … RENAME"},
		{"ALTER MATERIALIZED VIEW v RENAME TO w", "ALTER MATERIALIZED VIEW … RENAME"},
		{"ALTER TABLE t ADD COLUMN b int", "ALTER TABLE"},
		{"ALTER INDEX i SET (fillfactor = 50)", "ALTER INDEX"},
		{"DROP FUNCTION f", "DROP FUNCTION"},
		{"CREATE TRIGGER tr AFTER INSERT ON t EXECUTE FUNCTION f()", "CREATE TRIGGER"},
		{"CREATE AGGREGATE a (int) (sfunc = f, stype = int)", "CREATE AGGREGATE"},
		{"VACUUM t", "VACUUM"},
		{"CREATE EXTENSION foo", "CREATE EXTENSION"},
		{"GRANT SELECT ON t TO bob", "GRANT"},
		{"COMMENT ON TABLE t IS 'x'", "COMMENT ON TABLE"},
		{"CREATE PUBLICATION p FOR ALL TABLES", "CREATE PUBLICATION"},
	} {
		tree, err := pg_query.Parse(c.sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := statementName(tree.Stmts[0].Stmt); got != c.want {
			t.Errorf("%s: %q, want %q", c.sql, got, c.want)
		}
	}
}
