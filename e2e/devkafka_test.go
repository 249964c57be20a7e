package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestDevkafkaSurvivesKill9 produces records to devkafka with a data
// directory, kills it with SIGKILL, starts it again on the same directory
// and reads every acknowledged record back, once, with the topic's ID
// unchanged: what the dev broker acknowledged survives its process.
func TestDevkafkaSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end process test; skipped with -short")
	}
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	p, _ := startDevkafka(t, "--listen", addr, "--data-dir", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.AllowAutoTopicCreation(), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	const records = 3000
	for i := 0; i < records; i += 100 {
		var batch []*kgo.Record
		for j := i; j < i+100; j++ {
			batch = append(batch, &kgo.Record{Topic: "kept", Value: []byte(fmt.Sprint(j))})
		}
		if err := cl.ProduceSync(ctx, batch...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	before, err := kadm.NewClient(cl).ListTopics(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	cl.Close()
	p.kill()

	startDevkafka(t, "--listen", addr, "--data-dir", dir)
	cl, err = kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics("kept"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	after, err := kadm.NewClient(cl).ListTopics(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	if before["kept"].ID != after["kept"].ID {
		t.Errorf("topic ID %s before the kill, %s after", before["kept"].ID, after["kept"].ID)
	}
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	if total != records {
		t.Fatalf("the partitions end at %d records in all after the kill, want %d", total, records)
	}
	seen := map[string]int{}
	for n := 0; n < records; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)]++; n++ })
	}
	for i := range records {
		if seen[fmt.Sprint(i)] != 1 {
			t.Fatalf("record %d read %d times after the kill", i, seen[fmt.Sprint(i)])
		}
	}
}
