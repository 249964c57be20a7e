package e2e

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// badValues are the malformed values TestDeadLetters mixes into good
// records, with the error each must leave in the errors relation.
var badValues = []struct {
	value []byte
	err   string
}{
	{[]byte(`{"id": 1, "x": `), "decoding value: invalid input syntax for type json: The input string ended unexpectedly."},
	{[]byte(`{"id": 1, "x": "many"}`), `decoding value: column "x": invalid input syntax for type integer: "many"`},
	{[]byte("\xff\xfe"), `decoding value: invalid byte sequence for encoding "UTF8": 0xff`},
	{[]byte(`[1, 2]`), "decoding value: expected a JSON object, found an array"},
}

// TestDeadLetters interleaves malformed records with good ones on several
// partitions and checks through SQL that every good record arrived once,
// that every bad one is in the errors relation with its partition,
// offset, key, value and error, and that the dead letter topic received
// the bad ones with headers saying where they came from.
func TestDeadLetters(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end Kafka test; skipped with -short")
	}
	const partitions, perPartition = 3, 400
	b := startBroker(t)
	b.createTopic("mixed", partitions)
	b.createTopic("mixed_dlq", 1)

	var recs []*kgo.Record
	var wantGood, wantBad []string
	var goodSum int64
	for p := range int32(partitions) {
		for off := range perPartition {
			key := []byte(fmt.Sprintf("k%d-%d", p, off))
			if off%7 == 3 {
				bad := badValues[(off/7)%len(badValues)]
				recs = append(recs, record(p, key, bad.value))
				wantBad = append(wantBad, fmt.Sprintf("%d|%d|\\x%s|\\x%s|%s", p, off, hex.EncodeToString(key), hex.EncodeToString(bad.value), bad.err))
				continue
			}
			id := int(p)*perPartition + off
			recs = append(recs, record(p, key, []byte(fmt.Sprintf(`{"id": %d, "x": %d}`, id, off))))
			wantGood = append(wantGood, fmt.Sprintf("%d|%d|%d", p, off, id))
			goodSum += int64(off)
		}
	}
	ends := b.produce("mixed", recs...)

	srv := startServer(t, "")
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	c.exec(`CREATE SOURCE mixed (id int8, x int) FROM KAFKA CONNECTION kc (TOPIC 'mixed') KEY FORMAT TEXT VALUE FORMAT JSON INCLUDE PARTITION, OFFSET WITH (DEAD LETTER TOPIC = 'mixed_dlq')`)
	waitProgress(t, c, "mixed", ends)

	if got := c.rows(`SELECT partition, "offset", id FROM mixed ORDER BY partition, "offset"`); got != strings.Join(wantGood, "\n") {
		t.Errorf("good records:\n%s\nwant\n%s", got, strings.Join(wantGood, "\n"))
	}
	if got, want := c.rows(`SELECT count(*), sum(x) FROM mixed`), fmt.Sprintf("%d|%d", len(wantGood), goodSum); got != want {
		t.Errorf("count and sum of good records = %s, want %s", got, want)
	}
	got := c.rows(`SELECT partition, "offset", key, value, error FROM mixed_errors ORDER BY partition, "offset"`)
	if got != strings.Join(wantBad, "\n") {
		t.Errorf("errors relation:\n%s\nwant\n%s", got, strings.Join(wantBad, "\n"))
	}
	if got := c.rows(`SELECT count(*) FROM mixed_errors WHERE ingested_at > now() - interval '10 minutes'`); got != fmt.Sprint(len(wantBad)) {
		t.Errorf("%s dead letters have a recent ingested_at, want all %d", got, len(wantBad))
	}

	dlq := consumeAll(t, b, "mixed_dlq", len(wantBad))
	var gotDLQ []string
	for _, r := range dlq {
		h := map[string]string{}
		for _, kv := range r.Headers {
			h[kv.Key] = string(kv.Value)
		}
		gotDLQ = append(gotDLQ, fmt.Sprintf("%s|%s|\\x%s|\\x%s|%s", h["streamdb.partition"], h["streamdb.offset"],
			hex.EncodeToString(r.Key), hex.EncodeToString(r.Value), h["streamdb.error"]))
		if h["streamdb.topic"] != "mixed" {
			t.Errorf("dead letter headers %v lack streamdb.topic=mixed", h)
		}
	}
	slices.SortFunc(gotDLQ, func(a, b string) int { return strings.Compare(sortKey(a), sortKey(b)) })
	if strings.Join(gotDLQ, "\n") != strings.Join(wantBad, "\n") {
		t.Errorf("dead letter topic:\n%s\nwant\n%s", strings.Join(gotDLQ, "\n"), strings.Join(wantBad, "\n"))
	}
}

// sortKey orders "partition|offset|…" lines numerically.
func sortKey(line string) string {
	var p, off int
	fmt.Sscanf(strings.ReplaceAll(line, "|", " "), "%d %d", &p, &off)
	return fmt.Sprintf("%08d %012d", p, off)
}

// waitProgress waits until a source's progress relation shows the end
// offsets the producer was acknowledged.
func waitProgress(t *testing.T, c *client, source string, ends map[int32]int64) {
	t.Helper()
	parts := slices.Sorted(func(yield func(int32) bool) {
		for p := range ends {
			if !yield(p) {
				return
			}
		}
	})
	var want []string
	for _, p := range parts {
		want = append(want, fmt.Sprintf("%d|%d", p, ends[p]))
	}
	c.waitRows(fmt.Sprintf(`SELECT partition, "offset" FROM %s_progress WHERE "offset" > 0 ORDER BY partition::int`, source), strings.Join(want, "\n"))
}

// consumeAll reads n records from the start of a topic's partitions,
// failing after waitTimeout.
func consumeAll(t *testing.T, b *broker, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.addr), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records from %s", len(out), n, topic)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Logf("consuming %s: %v", topic, err) })
		out = append(out, fs.Records()...)
	}
	return out
}
