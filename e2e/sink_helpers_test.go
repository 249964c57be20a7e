package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/twmb/franz-go/pkg/kgo"
)

// topicReader follows a topic from its start with a read_committed
// consumer, as a downstream application would, and checks what it
// reads: under ENVELOPE DEBEZIUM each change's "before" must be the
// key's value after the previous change (a lost change breaks that
// chain, and so does a repeated one), and under ENVELOPE UPSERT the
// latest value per key is the state.
type topicReader struct {
	t        testing.TB
	cl       *kgo.Client
	debezium bool
	// state is the latest value per key, canonical JSON.
	state   map[string]string
	records int
}

func readTopic(t testing.TB, addr, topic string, debezium bool) *topicReader {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &topicReader{t: t, cl: cl, debezium: debezium, state: map[string]string{}}
}

// poll reads what the topic has committed so far, for up to a moment.
func (r *topicReader) poll() {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	fs := r.cl.PollFetches(ctx)
	fs.EachRecord(func(rec *kgo.Record) {
		r.records++
		key := canonJSON(r.t, rec.Key)
		if !r.debezium {
			if rec.Value == nil {
				delete(r.state, key)
			} else {
				r.state[key] = canonJSON(r.t, rec.Value)
			}
			return
		}
		var env struct{ Before, After json.RawMessage }
		if err := json.Unmarshal(rec.Value, &env); err != nil {
			r.t.Fatalf("record %s: %v", rec.Value, err)
		}
		before, have := canonJSON(r.t, env.Before), r.state[key]
		if have == "" {
			have = "null"
		}
		if before != have {
			r.t.Fatalf("key %s: a change from %s, but the key held %s: a change was lost or repeated (offset %d/%d)",
				key, before, have, rec.Partition, rec.Offset)
		}
		if after := canonJSON(r.t, env.After); after == "null" {
			delete(r.state, key)
		} else {
			r.state[key] = after
		}
	})
}

// waitState polls until the state read equals want, the relation's
// contents by key.
func (r *topicReader) waitState(want map[string]string, what string) {
	r.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		r.poll()
		if maps.Equal(r.state, want) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: after %d records the topic holds\n%s\nwant\n%s", what, r.records, showState(r.state), showState(want))
		}
	}
}

func showState(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	for i, k := range keys {
		if i == 20 {
			fmt.Fprintf(&b, "… %d more\n", len(keys)-i)
			break
		}
		fmt.Fprintf(&b, "  %s: %s\n", k, m[k])
	}
	return b.String()
}

// canonJSON re-encodes JSON with sorted members and numbers as written.
func canonJSON(t testing.TB, b []byte) string {
	t.Helper()
	if b == nil {
		return "null"
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("JSON %q: %v", b, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// relationState renders a query's rows as a sink's key and value JSON:
// the query returns the key's JSON and the row's JSON (json_build_object).
func relationState(t testing.TB, c *client, query string) map[string]string {
	t.Helper()
	out := map[string]string{}
	rows := c.rows(query)
	if rows == "" {
		return out
	}
	for _, line := range strings.Split(rows, "\n") {
		k, v, ok := strings.Cut(line, "|")
		if !ok {
			t.Fatalf("row %q", line)
		}
		out[canonJSON(t, []byte(k))] = canonJSON(t, []byte(v))
	}
	return out
}

// sqlState returns the SQLSTATE of a statement's error, "" if none.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
