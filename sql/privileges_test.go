package sql_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/internal/testserver"
)

// privStep is one statement of a privileges script: run as a role,
// with its result ("a|b" lines, for a query), or the SQLSTATE and
// message it must fail with.
type privStep struct {
	as, sql, want, code, msg string
}

// TestPrivileges runs, as a superuser and as roles that are not,
// statements that need privileges, and checks what PostgreSQL 15 gives
// each: ownership, GRANT and REVOKE on tables, views and materialized
// views, grants through a group role, a view read with its owner's
// privileges, CREATE on schema public, ALTER … OWNER TO, DROP ROLE
// refused while the role holds privileges or owns objects, and the
// privilege functions JDBC and psql ask.
func TestPrivileges(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conns := map[string]*pgx.Conn{"streamdb": connect(t, srv.URL)}
	as := func(role string) *pgx.Conn {
		if c, ok := conns[role]; ok {
			return c
		}
		c := connect(t, strings.Replace(srv.URL, "streamdb@", role+"@", 1))
		conns[role] = c
		return c
	}
	const denied = "42501"
	steps := []privStep{
		{as: "streamdb", sql: "CREATE ROLE alice LOGIN"},
		{as: "streamdb", sql: "CREATE USER bob"},
		{as: "streamdb", sql: "CREATE ROLE readers"},
		{as: "streamdb", sql: "GRANT readers TO bob"},
		{as: "streamdb", sql: "CREATE TABLE t (a int)"},
		{as: "streamdb", sql: "INSERT INTO t VALUES (1), (2), (3)"},
		{as: "streamdb", sql: "CREATE VIEW v AS SELECT a FROM t WHERE a > 1"},
		{as: "streamdb", sql: "CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n FROM t"},
		{as: "streamdb", sql: "CREATE SEQUENCE seq"},

		// Nothing granted: every read, write and change is refused.
		{as: "alice", sql: "SELECT current_user, session_user", want: "alice|alice"},
		{as: "alice", sql: "SELECT * FROM t", code: denied, msg: "permission denied for table t"},
		{as: "alice", sql: "SELECT * FROM v", code: denied, msg: "permission denied for view v"},
		{as: "alice", sql: "SELECT * FROM mv", code: denied, msg: "permission denied for materialized view mv"},
		{as: "alice", sql: "SELECT 1 FROM (SELECT * FROM t) s WHERE EXISTS (SELECT 1 FROM mv)", code: denied},
		{as: "alice", sql: "WITH w AS (SELECT * FROM t) SELECT 1", code: denied},
		{as: "alice", sql: "INSERT INTO t VALUES (4)", code: denied, msg: "permission denied for table t"},
		{as: "alice", sql: "UPDATE t SET a = 0", code: denied},
		{as: "alice", sql: "DELETE FROM t", code: denied},
		{as: "alice", sql: "SUBSCRIBE TO mv", code: denied},
		{as: "alice", sql: "EXPLAIN SELECT * FROM t", code: denied},
		{as: "alice", sql: "SELECT nextval('seq')", code: denied, msg: "permission denied for sequence seq"},
		{as: "alice", sql: "SHOW CREATE VIEW v", code: denied},
		{as: "alice", sql: "SELECT pg_get_viewdef('v'::regclass) IS NULL, (SELECT definition IS NULL FROM pg_views WHERE viewname = 'v'), (SELECT definition IS NULL FROM pg_matviews WHERE matviewname = 'mv')", want: "true|true|true"},
		{as: "streamdb", sql: "SELECT pg_get_viewdef('v'::regclass) IS NULL, (SELECT definition IS NULL FROM pg_views WHERE viewname = 'v')", want: "false|false"},
		{as: "alice", sql: "CREATE TABLE mine (x int)", code: denied, msg: "permission denied for schema public"},
		{as: "alice", sql: "CREATE VIEW mine AS SELECT 1", code: denied},
		{as: "alice", sql: "DROP TABLE t", code: denied, msg: "must be owner of table t"},
		{as: "alice", sql: "DROP VIEW v", code: denied, msg: "must be owner of view v"},
		{as: "alice", sql: "ALTER TABLE t OWNER TO alice", code: denied, msg: "must be owner of table t"},
		{as: "alice", sql: "ALTER TABLE t RENAME TO t2", code: denied, msg: "must be owner of table t"},
		{as: "alice", sql: "GRANT SELECT ON t TO alice", code: denied, msg: "permission denied for table t"},
		{as: "alice", sql: "CREATE ROLE eve", code: denied, msg: "permission denied to create role"},
		{as: "alice", sql: "ALTER ROLE bob PASSWORD 'x'", code: denied},
		{as: "alice", sql: "DROP ROLE bob", code: denied},
		{as: "alice", sql: "GRANT readers TO alice", code: denied},
		{as: "alice", sql: "SELECT * FROM pg_authid", code: denied, msg: "permission denied for table pg_authid"},
		{as: "alice", sql: "SELECT passwd FROM pg_shadow", code: denied, msg: "permission denied for table pg_shadow"},
		{as: "alice", sql: "SELECT count(*) FROM pg_roles r JOIN pg_authid a ON a.oid = r.oid", code: denied},
		{as: "streamdb", sql: "SELECT left(rolpassword, 14), (SELECT rolpassword FROM pg_roles WHERE rolname = 'alice') FROM pg_authid WHERE rolname = 'alice'", want: "NULL|********"},
		{as: "alice", sql: "SELECT rolname FROM pg_roles WHERE rolname = 'alice'", want: "alice"},
		{as: "alice", sql: "SELECT has_table_privilege('t', 'SELECT'), has_table_privilege('streamdb', 't', 'SELECT'), has_schema_privilege('public', 'CREATE')", want: "false|true|false"},

		// A grant to a group reaches its members; the view reads the
		// table with its owner's privileges, which the reader lacks.
		{as: "streamdb", sql: "GRANT SELECT ON v, mv TO readers"},
		{as: "bob", sql: "SELECT a FROM v ORDER BY a", want: "2\n3"},
		{as: "bob", sql: "SELECT n FROM mv", want: "3"},
		{as: "bob", sql: "SELECT * FROM t", code: denied},
		{as: "alice", sql: "SELECT * FROM v", code: denied},
		{as: "bob", sql: "SELECT has_table_privilege('v', 'SELECT'), has_table_privilege('v', 'INSERT'), pg_has_role('readers', 'MEMBER')", want: "true|false|true"},
		{as: "streamdb", sql: "SELECT has_table_privilege('bob', 'mv', 'SELECT'), has_table_privilege('alice', 'mv', 'SELECT')", want: "true|false"},
		{as: "streamdb", sql: "SELECT relacl::text FROM pg_class WHERE relname = 'v'", want: "{streamdb=arwdDxt/streamdb,readers=r/streamdb}"},

		// SET ROLE takes on a role's privileges, for its members only.
		{as: "bob", sql: "SET ROLE readers"},
		{as: "bob", sql: "SELECT current_user, session_user, current_setting('role'), current_setting('is_superuser')", want: "readers|bob|readers|off"},
		{as: "bob", sql: "SELECT count(*) FROM v", want: "2"},
		{as: "bob", sql: "SELECT * FROM t", code: denied},
		{as: "bob", sql: "RESET ROLE"},
		{as: "bob", sql: "SELECT current_user, current_setting('role')", want: "bob|none"},
		{as: "alice", sql: "SET ROLE readers", code: denied, msg: `permission denied to set role "readers"`},
		{as: "alice", sql: "SET ROLE nobody", code: "22023", msg: `role "nobody" does not exist`},
		{as: "streamdb", sql: "SET ROLE alice"},
		{as: "streamdb", sql: "SELECT current_user, session_user, current_setting('is_superuser')", want: "alice|streamdb|off"},
		{as: "streamdb", sql: "SELECT count(*) FROM t", code: denied},
		{as: "streamdb", sql: "SET ROLE NONE"},
		{as: "streamdb", sql: "SELECT count(*), current_user FROM t", want: "3|streamdb"},
		{as: "streamdb", sql: "SET ROLE bob"},
		{as: "streamdb", sql: "RESET ALL"},
		{as: "streamdb", sql: "SELECT current_user", want: "streamdb"},

		{as: "streamdb", sql: "REVOKE SELECT ON v FROM readers"},
		{as: "bob", sql: "SELECT * FROM v", code: denied},

		// A write privilege alone writes without reading.
		{as: "streamdb", sql: "GRANT INSERT, UPDATE ON t TO alice"},
		{as: "alice", sql: "INSERT INTO t VALUES (4)"},
		{as: "alice", sql: "UPDATE t SET a = 4"},
		{as: "alice", sql: "UPDATE t SET a = a + 1", code: denied},
		{as: "alice", sql: "INSERT INTO t VALUES (5) RETURNING a", code: denied},
		{as: "alice", sql: "DELETE FROM t", code: denied},
		{as: "streamdb", sql: "SELECT count(*), min(a), max(a) FROM t", want: "4|4|4"},

		// Objects a role creates are its own; ownership moves.
		{as: "streamdb", sql: "GRANT CREATE ON SCHEMA public TO alice"},
		{as: "alice", sql: "CREATE TABLE mine (x int)"},
		{as: "alice", sql: "CREATE CONNECTION ak TO KAFKA (BROKER '127.0.0.1:1')", code: denied, msg: "permission denied to create connection"},
		{as: "alice", sql: "INSERT INTO mine VALUES (7)"},
		{as: "alice", sql: "GRANT SELECT ON mine TO bob"},
		{as: "bob", sql: "SELECT x FROM mine", want: "7"},
		{as: "streamdb", sql: "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'mine'", want: "alice"},
		{as: "alice", sql: "ALTER TABLE mine OWNER TO bob", code: denied, msg: `must be member of role "bob"`},
		{as: "streamdb", sql: "ALTER TABLE mine OWNER TO bob"},
		{as: "streamdb", sql: "SELECT pg_get_userbyid(relowner), relacl::text FROM pg_class WHERE relname = 'mine'", want: "bob|{bob=arwdDxt/bob}"},
		{as: "alice", sql: "SELECT * FROM mine", code: denied},
		{as: "alice", sql: "DROP TABLE mine", code: denied, msg: "must be owner of table mine"},
		{as: "bob", sql: "DROP TABLE mine"},

		// Sources, connections and secrets change owner too; a source's
		// subsources follow it.
		{as: "streamdb", sql: "CREATE SOURCE counter FROM LOAD GENERATOR COUNTER (TICK INTERVAL '1h')"},
		{as: "streamdb", sql: "CREATE CONNECTION kc TO KAFKA (BROKER '127.0.0.1:1')"},
		{as: "streamdb", sql: "CREATE SECRET pw AS 'x'"},
		{as: "alice", sql: "CREATE SOURCE ks FROM KAFKA CONNECTION kc (TOPIC 't') FORMAT TEXT", code: denied, msg: "permission denied for connection kc"},
		{as: "alice", sql: "SELECT * FROM counter", code: denied, msg: "permission denied for source counter"},
		{as: "alice", sql: "CREATE SINK ts FROM t INTO KAFKA CONNECTION kc (TOPIC 't') FORMAT JSON ENVELOPE DEBEZIUM", code: denied, msg: "permission denied for table t"},
		{as: "alice", sql: "CREATE SINK ts FROM counter INTO KAFKA CONNECTION kc (TOPIC 't') FORMAT JSON ENVELOPE DEBEZIUM", code: denied, msg: "permission denied for source counter"},
		{as: "alice", sql: "ALTER SOURCE counter OWNER TO alice", code: denied, msg: "must be owner of source counter"},
		{as: "alice", sql: "ALTER SECRET pw OWNER TO CURRENT_USER", code: denied, msg: "must be owner of secret pw"},
		{as: "streamdb", sql: "ALTER SOURCE counter OWNER TO alice"},
		{as: "streamdb", sql: "ALTER CONNECTION kc OWNER TO alice"},
		{as: "streamdb", sql: "ALTER SECRET pw OWNER TO alice"},
		{as: "streamdb", sql: "ALTER SOURCE IF EXISTS nope OWNER TO alice"},
		{as: "streamdb", sql: "ALTER SECRET nope OWNER TO alice", code: "42704", msg: `secret "nope" does not exist`},
		{as: "streamdb", sql: "ALTER CONNECTION kc OWNER TO nobody", code: "42704", msg: `role "nobody" does not exist`},
		{as: "streamdb", sql: "SELECT relname, pg_get_userbyid(relowner) FROM pg_class WHERE relname IN ('counter', 'counter_progress', 'kc', 'pw') ORDER BY 1",
			want: "counter|alice\ncounter_progress|alice\nkc|alice\npw|alice"},
		{as: "alice", sql: "SELECT count(*) > 0 FROM counter", want: "true"},
		{as: "alice", sql: "ALTER SECRET pw AS 'y'"},
		{as: "alice", sql: "DROP CONNECTION kc"},
		{as: "alice", sql: "DROP SECRET pw"},
		{as: "alice", sql: "DROP SOURCE counter"},

		// A role that holds privileges or owns objects cannot be dropped.
		{as: "alice", sql: "CREATE VIEW alices AS SELECT 1 AS one"},
		{as: "alice", sql: "REASSIGN OWNED BY alice TO bob", code: denied, msg: "permission denied to reassign objects"},
		{as: "streamdb", sql: "DROP ROLE alice", code: "55006", msg: `role "alice" is being used by another session`},
		{as: "alice", sql: "disconnect"}, // closes alice's session
		{as: "streamdb", sql: "DROP ROLE alice", code: "2BP01", msg: `role "alice" cannot be dropped because some objects depend on it`},
		{as: "streamdb", sql: "REASSIGN OWNED BY streamdb TO alice", code: "2BP01"},
		{as: "streamdb", sql: "REASSIGN OWNED BY alice TO bob"},
		{as: "streamdb", sql: "SELECT pg_get_userbyid(relowner), relacl::text FROM pg_class WHERE relname = 'alices'", want: "bob|NULL"},
		{as: "bob", sql: "DROP VIEW alices"},
		{as: "streamdb", sql: "REVOKE ALL ON t FROM alice"},
		{as: "streamdb", sql: "REVOKE CREATE ON SCHEMA public FROM alice"},
		{as: "streamdb", sql: "DROP ROLE alice"},
		{as: "streamdb", sql: "SELECT count(*) FROM pg_roles WHERE rolname = 'alice'", want: "0"},

		// DROP OWNED drops a role's objects and revokes its privileges,
		// and those it granted.
		{as: "streamdb", sql: "CREATE ROLE dave LOGIN"},
		{as: "streamdb", sql: "GRANT CREATE ON SCHEMA public TO dave"},
		{as: "streamdb", sql: "GRANT SELECT ON t TO dave WITH GRANT OPTION"},
		{as: "dave", sql: "CREATE TABLE dt (x int)"},
		{as: "dave", sql: "CREATE VIEW dv AS SELECT x FROM dt"},
		{as: "dave", sql: "GRANT SELECT ON t TO bob"},
		{as: "bob", sql: "SELECT count(*) FROM t", want: "4"},
		{as: "bob", sql: "DROP OWNED BY dave", code: denied, msg: "permission denied to drop objects"},
		{as: "streamdb", sql: "DROP OWNED BY streamdb", code: "2BP01"},
		{as: "dave", sql: "disconnect"},
		{as: "streamdb", sql: "DROP ROLE dave", code: "2BP01"},
		{as: "streamdb", sql: "DROP OWNED BY dave"},
		{as: "streamdb", sql: "SELECT count(*) FROM pg_class WHERE relname IN ('dt', 'dv')", want: "0"},
		{as: "streamdb", sql: "SELECT relacl::text FROM pg_class WHERE relname = 't'", want: "{streamdb=arwdDxt/streamdb}"},
		{as: "bob", sql: "SELECT count(*) FROM t", code: denied},
		{as: "streamdb", sql: "DROP ROLE dave"},
	}
	ctx := context.Background()
	for _, st := range steps {
		if st.sql == "disconnect" {
			disconnect(t, conns["streamdb"], conns[st.as], st.as)
			delete(conns, st.as)
			continue
		}
		conn := as(st.as)
		if st.code != "" {
			_, err := conn.Exec(ctx, st.sql)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != st.code || st.msg != "" && pe.Message != st.msg {
				t.Errorf("%s: %s: %v, want %s %s", st.as, st.sql, err, st.code, st.msg)
			}
			continue
		}
		if st.want == "" {
			if _, err := conn.Exec(ctx, st.sql); err != nil {
				t.Fatalf("%s: %s: %v", st.as, st.sql, err)
			}
			continue
		}
		if got := rows(t, conn, st.sql); got != st.want {
			t.Errorf("%s: %s:\n got %s\nwant %s", st.as, st.sql, got, st.want)
		}
	}
}

// disconnect closes a role's one session and waits until the server no
// longer lists it in pg_stat_activity.
func disconnect(t *testing.T, admin, conn *pgx.Conn, role string) {
	t.Helper()
	conn.Close(context.Background())
	deadline := time.Now().Add(10 * time.Second)
	for rows(t, admin, "SELECT count(*) FROM pg_stat_activity WHERE usename = '"+role+"'") != "0" {
		if time.Now().After(deadline) {
			t.Fatalf("the session of %s is still listed", role)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRoleLogin checks what a role needs to log in: LOGIN, CONNECT on
// the database, and a free slot under its CONNECTION LIMIT.
func TestRoleLogin(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	admin := connect(t, srv.URL)
	for _, q := range []string{
		"CREATE ROLE nologin",
		"CREATE ROLE limited LOGIN CONNECTION LIMIT 1",
		"CREATE ROLE outsider LOGIN",
		"REVOKE CONNECT ON DATABASE streamdb FROM PUBLIC",
		"GRANT CONNECT ON DATABASE streamdb TO limited",
	} {
		exec(t, admin, q)
	}
	ctx := context.Background()
	login := func(role string) (*pgx.Conn, error) {
		return pgx.Connect(ctx, strings.Replace(srv.URL, "streamdb@", role+"@", 1))
	}
	first, err := login("limited")
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close(ctx)
	for _, tc := range []struct{ role, code, msg string }{
		{"limited", "53300", `too many connections for role "limited"`},
		{"nologin", "28000", `role "nologin" is not permitted to log in`},
		{"outsider", "42501", `permission denied for database "streamdb"`},
		{"nobody", "28000", `role "nobody" does not exist`},
	} {
		c, err := login(tc.role)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tc.code || pe.Message != tc.msg {
			t.Errorf("%s: %v, want %s %s", tc.role, err, tc.code, tc.msg)
		}
		if c != nil {
			c.Close(ctx)
		}
	}
	disconnect(t, admin, first, "limited")
	second, err := login("limited")
	if err != nil {
		t.Fatalf("after the first session ended: %v", err)
	}
	second.Close(ctx)
}
