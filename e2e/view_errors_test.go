package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestViewErrorsFromKafka sends a record whose value a view cannot cast
// among good ones: the source ingests it (it decodes fine, so it is not
// a dead letter), the view's reads fail naming the view, SHOW
// MATERIALIZED VIEWS shows the view in error, and streamdb_view_errors
// lists the error with the record: its row, source, partition and
// offset.
func TestViewErrorsFromKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	b := startBroker(t)
	b.createTopic("drinks", 2)
	var recs []*kgo.Record
	for i := range 200 {
		qty := fmt.Sprint(i % 5)
		if i == 141 {
			qty = `"two"`
		}
		recs = append(recs, record(int32(i%2), nil, []byte(fmt.Sprintf(`{"id": %d, "bar": "bar%d", "qty": %s}`, i, i%3, qty))))
	}
	ends := b.produce("drinks", recs...)

	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE SOURCE drinks FROM KAFKA CONNECTION kc (TOPIC 'drinks') FORMAT JSON`)
	c.exec(`CREATE MATERIALIZED VIEW per_bar AS SELECT data->>'bar' AS bar, sum((data->>'qty')::int) AS qty FROM drinks GROUP BY 1`)
	waitProgress(t, c, "drinks", ends)

	err := c.try(`SELECT * FROM per_bar`)
	if err == nil || !strings.Contains(err.Error(), `materialized view "per_bar": invalid input syntax for type integer: "two"`) {
		t.Fatalf("read of the view in error: %v", err)
	}
	if got := c.rows(`SELECT count(*) FROM drinks_errors`); got != "0" {
		t.Errorf("%s dead letters: the record decodes", got)
	}
	if got := c.rows(`SHOW MATERIALIZED VIEWS WHERE name = 'per_bar'`); !strings.Contains(got, `|error: invalid input syntax for type integer: "two" (1 row)|`) {
		t.Errorf("SHOW MATERIALIZED VIEWS: %s", got)
	}
	// Record 141 went to partition 1 as its 71st record (offset 70).
	want := `per_bar|22P02|1|drinks|("{""id"": 141, ""bar"": ""bar0"", ""qty"": ""two""}")|drinks|1|70`
	got := c.rows(`SELECT view, code, count, input, example, source, partition, "offset" FROM streamdb_view_errors`)
	if got != want {
		t.Errorf("streamdb_view_errors:\n got %s\nwant %s", got, want)
	}
}
