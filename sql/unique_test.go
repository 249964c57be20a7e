package sql_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestUniqueConcurrentCommits races transactions that each insert the
// same unique key, with their statement-level checks passed against the
// same snapshot: exactly one may commit, in whichever tick they land.
func TestUniqueConcurrentCommits(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE u (id int PRIMARY KEY, email text UNIQUE)")
	const writers = 6
	for round := range 5 {
		conns := make([]*pgx.Conn, writers)
		for i := range conns {
			conns[i] = connect(t, srv.URL)
			exec(t, conns[i], "BEGIN")
			exec(t, conns[i], "INSERT INTO u VALUES ($1, $2)", round*writers+i, fmt.Sprintf("key-%d", round))
		}
		var wg sync.WaitGroup
		codes := make([]string, writers)
		for i, c := range conns {
			wg.Go(func() {
				_, err := c.Exec(context.Background(), "COMMIT")
				codes[i] = sqlState(err)
			})
		}
		wg.Wait()
		ok := 0
		for i, code := range codes {
			switch code {
			case "":
				ok++
			case "23505":
			default:
				t.Errorf("round %d writer %d: COMMIT failed with %q, want success or 23505", round, i, code)
			}
		}
		if ok != 1 {
			t.Errorf("round %d: %d commits succeeded, want exactly 1", round, ok)
		}
		if got := rows(t, conn, "SELECT count(*) FROM u WHERE email = $1", fmt.Sprintf("key-%d", round)); got != "1" {
			t.Errorf("round %d: %s rows hold the key, want 1", round, got)
		}
	}
}

// TestUniqueSurvivesRestart checks that a UNIQUE constraint is enforced
// after the catalog is replayed.
func TestUniqueSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE r (k int UNIQUE, v text)")
	exec(t, conn, "INSERT INTO r VALUES (1, 'a'), (NULL, 'b'), (NULL, 'c')")
	conn.Close(context.Background())
	srv.Stop()
	srv = testserver.Start(t, testserver.Options{Dir: dir})
	conn = connect(t, srv.URL)
	_, err := conn.Exec(context.Background(), "INSERT INTO r VALUES (1, 'again')")
	if got := sqlState(err); got != "23505" {
		t.Fatalf("duplicate after restart: SQLSTATE %q (%v), want 23505", got, err)
	}
	exec(t, conn, "INSERT INTO r VALUES (2, 'd')")
	if got := rows(t, conn, "SELECT count(*) FROM r"); got != "4" {
		t.Errorf("rows after restart = %s, want 4", got)
	}
}
