package kafkaconn

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestRedactHidesPeerBytes points a real franz-go client at a service
// that is not Kafka and answers with a banner, and checks that neither
// the error the client returns, once redacted, nor the client's log
// carries the banner's bytes (franz-go prints the first four as a
// number).
func TestRedactHidesPeerBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
				io.Copy(io.Discard, c)
			}()
		}
	}()
	var log strings.Builder
	l := slog.New(slog.NewTextHandler(&lockedWriter{w: &log}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	conn := Connection{Brokers: []string{ln.Addr().String()}}
	cl, err := kgo.NewClient(append(conn.ClientOpts(l), kgo.RetryTimeout(time.Second))...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err = cl.Ping(ctx)
	cl.Close()
	if err == nil {
		t.Fatal("ping of a service that is not Kafka succeeded")
	}
	// "SSH-" read as a big-endian int32.
	const banner = "1397966893"
	if !strings.Contains(err.Error(), banner) {
		t.Logf("franz-go no longer prints the bytes: %v", err)
	}
	if got := Redact(err).Error(); strings.Contains(got, banner) || !strings.Contains(got, "not a Kafka response") {
		t.Errorf("redacted: %s", got)
	}
	lw := log.String()
	if strings.Contains(lw, banner) {
		t.Errorf("the log has the peer's bytes:\n%s", lw)
	}
	if !strings.Contains(lw, "not a Kafka response") {
		t.Errorf("the log does not say the peer is not Kafka:\n%s", lw)
	}
}

func TestRedactKeepsOtherErrors(t *testing.T) {
	err := errors.New("connecting to 127.0.0.1:1: connection refused")
	if Redact(err) != err || Redact(nil) != nil {
		t.Error("an error without a peer's bytes changed")
	}
	got := Redact(errors.New("fetching metadata from [h:1]: invalid negative response size -12 > 0")).Error()
	if got != "fetching metadata from [h:1]: "+notKafka {
		t.Errorf("got %s", got)
	}
}

// lockedWriter serializes the writes of the client's goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
