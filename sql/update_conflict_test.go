package sql_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestConcurrentIncrementsLoseNothing runs UPDATE … SET v = v + 1 on one
// row from several connections at once: every increment that commits must
// show in the row, and one that read a value another commit changed must
// fail with 40001, never overwrite it. An UPDATE computes its rows from
// one snapshot; checking them at commit against a later one lost updates.
func TestConcurrentIncrementsLoseNothing(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE ctr (id int PRIMARY KEY, v int NOT NULL)")
	exec(t, conn, "INSERT INTO ctr VALUES (1, 0), (2, 0)")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var committed, conflicts atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		c := connect(t, srv.URL)
		wg.Go(func() {
			for ctx.Err() == nil {
				_, err := c.Exec(context.Background(), "UPDATE ctr SET v = v + 1 WHERE id IN (1, 2)")
				switch sqlState(err) {
				case "":
					committed.Add(1)
				case "40001":
					conflicts.Add(1)
				default:
					t.Errorf("UPDATE: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	want := committed.Load()
	if got := rows(t, conn, "SELECT min(v)::bigint, max(v)::bigint FROM ctr"); got != fmt.Sprintf("%d|%d", want, want) {
		t.Fatalf("after %d committed increments (%d conflicts) the rows hold %s", want, conflicts.Load(), got)
	}
	if want < 10 {
		t.Fatalf("only %d increments committed", want)
	}
}
