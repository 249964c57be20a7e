package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestSubscribe streams a view's changes to a client while another
// session writes, and checks that cancelling ends the stream.
func TestSubscribe(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	writer := connect(t, srv.URL)
	reader := connect(t, srv.URL)
	exec(t, writer, "CREATE TABLE s (k text, v int)")
	exec(t, writer, "INSERT INTO s VALUES ('a', 1)")
	exec(t, writer, "CREATE MATERIALIZED VIEW totals AS SELECT k, sum(v) AS total FROM s GROUP BY k")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rs, err := reader.Query(ctx, "SUBSCRIBE totals")
	if err != nil {
		t.Fatal(err)
	}
	next := func() string {
		if !rs.Next() {
			t.Fatalf("stream ended: %v", rs.Err())
		}
		vals, err := rs.Values()
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(vals[1:])
	}
	if got := next(); got != "[1 a 1]" {
		t.Errorf("snapshot row = %s", got)
	}
	exec(t, writer, "INSERT INTO s VALUES ('a', 2), ('b', 5)")
	var got []string
	for range 3 {
		got = append(got, next())
	}
	want := "[-1 a 1] [1 a 3] [1 b 5]"
	if strings.Join(got, " ") != want {
		t.Errorf("changes = %v, want %s", got, want)
	}
	cancel()
	for rs.Next() {
	}
	rs.Close()
	if got := rows(t, writer, "SELECT count(*) FROM totals"); got != "2" {
		t.Errorf("after the subscription ended: %s", got)
	}
}
