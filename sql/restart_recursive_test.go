package sql_test

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/testserver"
)

// TestRecursiveViewRestored restarts a server with a materialized view
// over WITH RECURSIVE (reachability, UNION) and one that walks with
// UNION ALL: both come back from their persisted state (SHOW
// MATERIALIZED VIEWS says restoring, not rebuilding), read as their
// queries compute, and stay so as the edges change after the restart.
func TestRecursiveViewRestored(t *testing.T) {
	const reach = "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT e.dst FROM r JOIN edges e ON e.src = r.n) SELECT n FROM r"
	const walks = "WITH RECURSIVE w(n, d) AS (SELECT 1, 0 UNION ALL SELECT e.dst, w.d + 1 FROM w JOIN edges e ON e.src = w.n WHERE w.d < 4) SELECT n, d FROM w"
	dir := t.TempDir()
	srv, err := testserver.Run(testserver.Options{Dir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, srv.URL)
	for _, s := range []string{
		"CREATE TABLE edges (src int, dst int)",
		"INSERT INTO edges SELECT g, g + 1 FROM generate_series(1, 30) AS g",
		"INSERT INTO edges VALUES (5, 1), (7, 40), (40, 41)",
		"CREATE MATERIALIZED VIEW reach AS " + reach,
		"CREATE MATERIALIZED VIEW walks AS " + walks,
		"DELETE FROM edges WHERE src = 20",
	} {
		exec(t, conn, s)
	}
	check := func(when string) {
		t.Helper()
		for _, v := range []struct{ name, query, order string }{{"reach", reach, " ORDER BY 1"}, {"walks", walks, " ORDER BY 1, 2"}} {
			if got, want := rows(t, conn, "SELECT * FROM "+v.name+v.order), rows(t, conn, v.query+v.order); got != want {
				t.Errorf("%s: view %s\n%s\nits query\n%s", when, v.name, got, want)
			}
		}
	}
	check("before the restart")
	conn.Close(context.Background())
	srv.Stop()

	release := make(chan struct{})
	held := make(chan struct{}, 2)
	knobs := &engine.TestingKnobs{BeforeHydrate: func(string) {
		held <- struct{}{}
		<-release
	}}
	srv, err = testserver.Run(testserver.Options{Dir: dir, Testing: knobs}, nil)
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	defer srv.Stop()
	<-held
	conn = connect(t, srv.URL)
	defer conn.Close(context.Background())
	got := hydrations(t, conn)
	close(release)
	if got != "reach|restoring|<1\nwalks|restoring|<1" {
		t.Errorf("SHOW MATERIALIZED VIEWS while the recursive views hydrate:\n%s", got)
	}
	check("after the restart")
	exec(t, conn, "INSERT INTO edges VALUES (20, 21), (41, 2)")
	exec(t, conn, "DELETE FROM edges WHERE src = 3")
	check("after changes following the restart")
}
