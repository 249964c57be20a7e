package e2e

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TestGroupIDPrefix creates a source with GROUP ID PREFIX and reads the
// consumer group <prefix>streamdb-<source> as a lag monitor would: it
// holds the positions the source has committed.
func TestGroupIDPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	b := startBroker(t)
	b.createTopic("watched", 2)
	want := b.produce("watched", record(0, nil, []byte("a")), record(1, nil, []byte("b")), record(1, nil, []byte("c")))
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE SOURCE watched FROM KAFKA CONNECTION kc (TOPIC 'watched', GROUP ID PREFIX 'ops-') FORMAT TEXT`)
	c.waitRows(`SELECT count(*) FROM watched`, "3")

	var got map[int32]int64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp, err := b.admin.FetchOffsets(ctx, "ops-streamdb-watched")
		cancel()
		if err == nil {
			got = map[int32]int64{}
			resp.Each(func(o kadm.OffsetResponse) { got[o.Partition] = o.At })
			if maps.Equal(got, want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("group ops-streamdb-watched holds %v (error %v), want %v", got, err, want)
		}
	}
}
