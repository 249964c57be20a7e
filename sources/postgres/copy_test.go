package postgres

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// copyStream encodes rows in PostgreSQL's binary COPY format; a nil field
// is NULL.
func copyStream(rows [][][]byte) []byte {
	b := append([]byte(nil), copySignature...)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, 4) // a header extension, skipped
	b = append(b, "ext!"...)
	for _, row := range rows {
		b = binary.BigEndian.AppendUint16(b, uint16(len(row)))
		for _, f := range row {
			if f == nil {
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
			b = append(b, f...)
		}
	}
	return binary.BigEndian.AppendUint16(b, 0xffff)
}

func renderFields(fields [][]byte) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		if f == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = fmt.Sprintf("%q", f)
		}
	}
	return strings.Join(parts, ",")
}

func renderSpans(data []byte, fields []span) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		if f.null {
			parts[i] = "NULL"
		} else {
			parts[i] = fmt.Sprintf("%q", data[f.off:f.off+f.n])
		}
	}
	return strings.Join(parts, ",")
}

// TestCopyDecoderSplits feeds a COPY stream cut at every point into two
// writes, and in writes of every size: rows come out whole and in order.
func TestCopyDecoderSplits(t *testing.T) {
	rows := [][][]byte{
		{[]byte("1"), []byte("one"), nil},
		{[]byte(""), nil, []byte(strings.Repeat("x", 300))},
		{[]byte("3"), []byte("three"), []byte{0, 1, 2}},
	}
	data := copyStream(rows)
	var want []string
	for _, r := range rows {
		want = append(want, renderFields(r))
	}
	decodeIn := func(chunks [][]byte) string {
		var got []string
		d := &copyDecoder{ncols: 3, row: func(data []byte, f []span) error {
			got = append(got, renderSpans(data, f))
			return nil
		}}
		for _, c := range chunks {
			// pgconn reuses its buffer: hand over a copy that is then
			// overwritten.
			buf := append([]byte(nil), c...)
			if _, err := d.Write(buf); err != nil {
				t.Fatal(err)
			}
			clear(buf)
		}
		if !d.done || len(d.buf) != 0 {
			t.Fatalf("stream not consumed: done %v, %d bytes left", d.done, len(d.buf))
		}
		return strings.Join(got, "\n")
	}
	for i := range data {
		if got := decodeIn([][]byte{data[:i], data[i:]}); got != strings.Join(want, "\n") {
			t.Fatalf("split at %d:\n%s", i, got)
		}
	}
	for size := 1; size < 40; size++ {
		var chunks [][]byte
		for i := 0; i < len(data); i += size {
			chunks = append(chunks, data[i:min(i+size, len(data))])
		}
		if got := decodeIn(chunks); got != strings.Join(want, "\n") {
			t.Fatalf("writes of %d bytes:\n%s", size, got)
		}
	}
}

// FuzzCopyDecoder feeds arbitrary bytes, split in two writes, to the COPY
// decoder, which must not panic.
func FuzzCopyDecoder(f *testing.F) {
	f.Add(copyStream([][][]byte{{[]byte("a"), nil}, {nil, []byte("bb")}}), 7)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		d := &copyDecoder{ncols: 2, row: func(data []byte, f []span) error {
			if len(f) != 2 {
				t.Fatalf("row of %d fields", len(f))
			}
			for _, s := range f {
				_ = data[s.off : s.off+s.n]
			}
			return nil
		}}
		if cut < 0 || cut > len(data) {
			cut = len(data) / 2
		}
		if _, err := d.Write(data[:cut]); err != nil {
			return
		}
		_, _ = d.Write(data[cut:])
	})
}
