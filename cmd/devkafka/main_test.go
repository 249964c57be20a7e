package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// syncBuffer is a bytes.Buffer safe for the broker's logger and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestAutoCreateAndShutdown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncBuffer
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--listen", "127.0.0.1:0", "--partitions", "5"}, &logs, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run: %v", err)
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	pctx, pcancel := context.WithTimeout(ctx, 20*time.Second)
	defer pcancel()
	if err := cl.ProduceSync(pctx, &kgo.Record{Topic: "fresh", Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	topics, err := kadm.NewClient(cl).ListTopics(pctx, "fresh")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(topics["fresh"].Partitions); n != 5 {
		t.Fatalf("auto-created topic has %d partitions, want 5", n)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after cancel", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop after cancel")
	}
	for _, want := range []string{"devkafka listening", "devkafka stopped"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, logs.String())
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--partitions", "0"},
		{"--log-level", "loud"},
		{"extra"},
		{"--listen", "not an address"},
	} {
		var out syncBuffer
		if err := run(context.Background(), args, &out, nil); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}
