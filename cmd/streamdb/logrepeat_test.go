package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestRepeatHandler(t *testing.T) {
	var buf bytes.Buffer
	h := newRepeatHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	now := time.Unix(0, 0)
	h.limiter.now = func() time.Time { return now }
	log := slog.New(h).With("component", "store")
	for range 1000 {
		log.Error("open table failed", "err", "too many open files")
	}
	log.Info("other message")
	now = now.Add(repeatWindow)
	log.Error("open table failed", "err", "too many open files")

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != repeatBurst+2 {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), repeatBurst+2, buf.String())
	}
	want := `level=ERROR msg="open table failed" component=store err="too many open files" suppressed_repeats=995`
	if last := lines[len(lines)-1]; last != want {
		t.Errorf("last line\n%s\nwant\n%s", last, want)
	}
	if !strings.Contains(lines[repeatBurst], "other message") {
		t.Errorf("a different message was dropped:\n%s", buf.String())
	}
	buf.Reset()
	for range 20 {
		log.Info("hydrated", "object", "v")
	}
	if n := strings.Count(buf.String(), "msg=hydrated"); n != 20 {
		t.Errorf("%d of 20 informational lines logged", n)
	}
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
