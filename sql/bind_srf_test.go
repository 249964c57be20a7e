package sql_test

import (
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestSelectListSetReturning covers what sqllogictest/suites/srf.slt
// cannot check against PostgreSQL: a bare multi-column call as the
// columns "name.field" that (name).field reads, and the shapes that are
// refused. JDBC's getPrimaryKeys query is the case that needs all of it.
func TestSelectListSetReturning(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE pk (a int, b int, c text, PRIMARY KEY (b, a))")
	checkQueries(t, conn, []queryCase{
		{sql: "SELECT information_schema._pg_expandarray(ARRAY[5, 6]) AS k", want: "5|1\n6|2"},
		{sql: "SELECT (k).x, (k).n FROM (SELECT information_schema._pg_expandarray(ARRAY[5, 6]) AS k) s ORDER BY 2 DESC", want: "6|2\n5|1"},
		{sql: `SELECT result.COLUMN_NAME, result.KEY_SEQ, result.PK_NAME FROM (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM,
			ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME, (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ,
			ci.relname AS PK_NAME, information_schema._pg_expandarray(i.indkey) AS KEYS, a.attnum AS A_ATTNUM
			FROM pg_catalog.pg_class ct JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)
			JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid) JOIN pg_catalog.pg_index i ON (a.attrelid = i.indrelid)
			JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid)
			WHERE true AND n.nspname = E'public' AND ct.relname = E'pk' AND i.indisprimary) result
			WHERE result.A_ATTNUM = (result.KEYS).x ORDER BY result.table_name, result.pk_name, result.key_seq`,
			want: "b|1|pk_pkey\na|2|pk_pkey"},
		{sql: "SELECT (a).x FROM pk", code: "42809"},
		{sql: "SELECT count(*), unnest(ARRAY[1]) FROM pk", code: "0A000"},
		{sql: "SELECT unnest(ARRAY[1]), generate_series(1, 2)", want: "1|1\nNULL|2"},
	})
}
