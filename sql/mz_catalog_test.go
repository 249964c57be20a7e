package sql_test

import (
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// listRelations is dbt-materialize's list_relations_without_caching query
// for the schema public of the database streamdb.
const listRelations = `select d.name as database, s.name as schema, o.name,
    case when o.type = 'materialized-view' then 'materializedview' else o.type end as type
  from mz_objects o
  left join mz_sources so on o.id = so.id
  join mz_schemas s on o.schema_id = s.id and s.name = 'public'
  join mz_databases d on s.database_id = d.id and d.name = 'streamdb'
  where o.type in ('table', 'source', 'view', 'materialized-view', 'index', 'sink')
    and coalesce(so.type, '') not in ('subsource', 'progress')
  order by o.name`

// TestMzCatalog checks what dbt-materialize reads: mz_version() and its
// relation listing over mz_catalog, which follows DDL; mz_catalog stays
// out of PostgreSQL's catalogs, and a user relation of the same name
// comes first.
func TestMzCatalog(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	if got := rows(t, conn, "SELECT mz_version()"); got != "v0.1.0 (streamdb)" {
		t.Errorf("mz_version() = %q", got)
	}
	exec(t, conn, "CREATE TABLE m_t (a int PRIMARY KEY)")
	exec(t, conn, "CREATE VIEW m_v AS SELECT a FROM m_t")
	exec(t, conn, "CREATE MATERIALIZED VIEW m_mv AS SELECT count(*) FROM m_t")
	exec(t, conn, "CREATE INDEX m_i ON m_t (a)")
	exec(t, conn, "CREATE SEQUENCE m_s")
	want := "streamdb|public|m_i|index\nstreamdb|public|m_mv|materializedview\nstreamdb|public|m_t|table\nstreamdb|public|m_v|view"
	if got := rows(t, conn, listRelations); got != want {
		t.Errorf("list relations:\n%s\nwant\n%s", got, want)
	}
	exec(t, conn, "ALTER VIEW m_v RENAME TO m_v2")
	exec(t, conn, "DROP MATERIALIZED VIEW m_mv")
	want = "streamdb|public|m_i|index\nstreamdb|public|m_t|table\nstreamdb|public|m_v2|view"
	if got := rows(t, conn, listRelations); got != want {
		t.Errorf("list relations after DDL:\n%s\nwant\n%s", got, want)
	}
	if got := rows(t, conn, "SELECT name, database_id FROM mz_catalog.mz_schemas WHERE name IN ('public', 'mz_catalog') ORDER BY name"); got != "mz_catalog|NULL\npublic|u1" {
		t.Errorf("mz_schemas: %q", got)
	}
	if got := rows(t, conn, "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname LIKE 'mz\\_%' OR n.nspname = 'mz_catalog'"); got != "0" {
		t.Errorf("pg_class lists mz_catalog: %s", got)
	}
	exec(t, conn, "CREATE TABLE mz_objects (x text)")
	exec(t, conn, "INSERT INTO mz_objects VALUES ('mine')")
	if got := rows(t, conn, "SELECT * FROM mz_objects"); got != "mine" {
		t.Errorf("a user table mz_objects reads %q", got)
	}
	if got := rows(t, conn, "SELECT count(*) > 0 FROM mz_catalog.mz_objects WHERE name = 'mz_objects'"); got != "true" {
		t.Errorf("mz_catalog.mz_objects qualified: %s", got)
	}
}
