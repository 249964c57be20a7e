package sql_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestNotStoredViewsMatchStored runs the same NEXMARK stream into a
// stored source and one WITH (STORED = false), with the same filtering
// projection over each: the not-stored source's batches go back to the
// generator after each tick and are built again in the same memory
// (sources.Batch.Release), and its view must still hold exactly what the
// stored source's does, strings included.
func TestNotStoredViewsMatchStored(t *testing.T) {
	const events = 60_000 // six batches
	srv := testserver.Start(t, testserver.Options{})
	conn := testserver.Connect(t, srv.URL)
	ctx := context.Background()
	for _, s := range []struct{ name, with string }{{"a", ""}, {"b", " WITH (STORED = false)"}} {
		for _, q := range []string{
			fmt.Sprintf("CREATE SOURCE %s FROM LOAD GENERATOR NEXMARK (MAX EVENTS %d, SEED 3) FOR TABLES (bid AS bid_%s)%s", s.name, events, s.name, s.with),
			fmt.Sprintf("CREATE MATERIALIZED VIEW v_%s AS SELECT auction, price, channel, extra FROM bid_%s WHERE auction %% 7 = 0", s.name, s.name),
		} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	deadline := time.Now().Add(time.Minute)
	for _, s := range []string{"a", "b"} {
		for {
			var off int64
			if err := conn.QueryRow(ctx, `SELECT coalesce(max("offset"), 0) FROM `+s+`_progress`).Scan(&off); err != nil {
				t.Fatal(err)
			}
			if off >= events {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("source %s ingested %d of %d events", s, off, events)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var rows, differ int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM v_b").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	err := conn.QueryRow(ctx, "SELECT count(*) FROM ((SELECT * FROM v_a EXCEPT ALL SELECT * FROM v_b) UNION ALL (SELECT * FROM v_b EXCEPT ALL SELECT * FROM v_a)) AS d").Scan(&differ)
	if err != nil {
		t.Fatal(err)
	}
	if rows < events/50 || differ != 0 {
		t.Fatalf("the not-stored view has %d rows, %d differ from the stored one's", rows, differ)
	}
}
