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
// projection over each: both sources' batches go back to the generator
// after each tick and are built again in the same memory
// (sources.Batch.Release), and the views must still hold exactly what
// the stored rows give, strings included.
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
	var rows int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM v_b").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows < events/50 {
		t.Fatalf("the not-stored view has %d rows", rows)
	}
	// The stored source's batches go back to the generator too (its
	// relation is cold): the rows it stored are the reference.
	adhoc := "SELECT auction, price, channel, extra FROM bid_a WHERE auction % 7 = 0"
	for _, pair := range [][2]string{{"SELECT * FROM v_a", "SELECT * FROM v_b"}, {adhoc, "SELECT * FROM v_a"}} {
		var differ int64
		q := fmt.Sprintf("SELECT count(*) FROM ((%[1]s EXCEPT ALL %[2]s) UNION ALL (%[2]s EXCEPT ALL %[1]s)) AS d", pair[0], pair[1])
		if err := conn.QueryRow(ctx, q).Scan(&differ); err != nil {
			t.Fatal(err)
		}
		if differ != 0 {
			t.Errorf("%d rows differ between %s and %s", differ, pair[0], pair[1])
		}
	}
}
