package kafka

import (
	"errors"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestBatchBuilder(t *testing.T) {
	b := newBatchBuilder(1024)
	var rows []types.Row
	for i := range 1000 {
		r := b.alloc(3)
		r[0] = types.NewInt8(int64(i))
		rows = append(rows, r)
	}
	_ = append(rows[0], types.NewInt8(-1)) // must not spill into rows[1]
	for i, r := range rows {
		if len(r) != 3 || cap(r) != 3 || r[0].Int() != int64(i) || !r[1].IsNull() {
			t.Fatalf("row %d = %v (cap %d)", i, r, cap(r))
		}
	}

	ts := time.UnixMilli(5000)
	b.noteRecord(&kgo.Record{Partition: 2, Offset: 41, Key: []byte("k"), Value: []byte("vv"), Timestamp: ts})
	b.noteRecord(&kgo.Record{Partition: 0, Offset: 7, Timestamp: ts.Add(-time.Second)})
	b.deadLetter(&kgo.Record{Partition: 0, Offset: 7, Value: []byte("bad")}, errors.New("boom"))
	if b.empty() || b.records != 2 || b.bytes != 3 {
		t.Fatalf("records %d bytes %d", b.records, b.bytes)
	}
	batch := b.take()
	pos, _, err := decodePositions(batch.Progress)
	if err != nil || len(pos) != 2 || pos[2] != 42 || pos[0] != 8 {
		t.Fatalf("progress %v, %v", pos, err)
	}
	if !batch.Time.Equal(ts) || len(batch.DeadLetters) != 1 || batch.DeadLetters[0].Offset != 7 || batch.DeadLetters[0].Err != "boom" {
		t.Fatalf("batch %+v", batch)
	}
	if !b.empty() || len(b.progress) != 0 || b.arena != nil {
		t.Fatal("take did not reset the builder")
	}
}
