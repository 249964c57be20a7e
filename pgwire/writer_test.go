package pgwire

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// writeRecorder records the sizes of the writes made to it.
type writeRecorder struct {
	writes, largest, total int
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.writes++
	w.total += len(p)
	w.largest = max(w.largest, len(p))
	return len(p), nil
}

// TestLargeResultStreams checks that a big result leaves in chunks of
// about flushSize, not as one buffer holding the whole result.
func TestLargeResultStreams(t *testing.T) {
	eng := &fakeEngine{}
	srv := NewServer(Config{Engine: eng})
	var in []byte
	in = append(in, startupPacket(pgproto3.ProtocolVersion30, "user", "u")...)
	in, _ = (&pgproto3.Query{String: "SELECT many(100000, 4)"}).Encode(in)
	in, _ = (&pgproto3.Terminate{}).Encode(in)
	rec := &writeRecorder{}
	c := srv.newConn(&pipeConn{r: bytes.NewReader(in), out: rec}, func(error) {})
	c.serve(context.Background())
	if rec.total < 100000*40 {
		t.Fatalf("only %d bytes written", rec.total)
	}
	if rec.largest > flushSize+1024 {
		t.Errorf("largest write %d bytes, want about %d", rec.largest, flushSize)
	}
	if rec.writes < rec.total/(flushSize+1024) {
		t.Errorf("%d writes for %d bytes", rec.writes, rec.total)
	}
	if cap(c.w.buf) > maxKeptBuffer {
		t.Errorf("writer kept a %d-byte buffer", cap(c.w.buf))
	}
}
