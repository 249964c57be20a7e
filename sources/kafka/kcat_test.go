package kafka

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// TestEndToEndKcatDevkafka produces with kcat (librdkafka, a real
// client) into the devkafka binary and reads the records with the
// source, over TCP between three processes' worth of code.
func TestEndToEndKcatDevkafka(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed (Debian package kcat: apt-get install kcat)")
	}
	if testing.Short() {
		t.Skip("builds cmd/devkafka")
	}
	bin := filepath.Join(t.TempDir(), "devkafka")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/streamdb/streamdb/cmd/devkafka").CombinedOutput(); err != nil {
		t.Fatalf("building devkafka: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	broker := exec.CommandContext(ctx, bin, "--listen", "127.0.0.1:0", "--partitions", "3")
	stderr, err := broker.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := broker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = broker.Wait()
	})
	addrCh := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "addr="); ok && strings.Contains(sc.Text(), "devkafka listening") {
				addrCh <- strings.Fields(rest)[0]
			}
		}
	}()
	var addr string
	select {
	case addr = <-addrCh:
	case <-time.After(30 * time.Second):
		t.Fatal("devkafka did not report its address")
	}

	// kcat -P reads key:value lines; the topic is auto-created with 3
	// partitions on first use.
	input := "a:{\"n\": 1}\nb:{\"n\": 2}\nc:not json\nd:{\"n\": 4}\n"
	cmd := exec.Command(kcat, "-b", addr, "-t", "e2e", "-P", "-K:", "-H", "origin=kcat")
	cmd.Stdin = strings.NewReader(input)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kcat: %v\n%s", err, out)
	}

	cfg := Config{Connection: kafkaconn.Connection{Brokers: []string{addr}}, Topic: "e2e", KeyFormat: textF, ValueFormat: jsonF,
		Columns: []sources.Column{col("n", types.TypeInt4)},
		Include: []IncludeOpt{{Kind: IncludeKey}, {Kind: IncludeHeader, Header: "origin", Alias: "origin"}}}
	sink, _ := start(t, mustNew(t, cfg), nil)
	got := sink.waitChanges(t, 3)
	slices.Sort(got)
	want := []string{"+1 (a, 1, kcat)", "+1 (b, 2, kcat)", "+1 (d, 4, kcat)"}
	if !slices.Equal(got, want) {
		t.Fatalf("read %q, want %q", got, want)
	}
	sink.waitFor(t, 10*time.Second, "the dead letter", func() bool { return len(sink.dead) == 1 })
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if d := sink.dead[0]; string(d.Key) != "c" || !strings.Contains(d.Err, "json") {
		t.Fatalf("dead letter %+v", d)
	}
}
