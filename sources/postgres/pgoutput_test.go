package postgres

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// seeds returns the pgoutput messages of testdata/pgoutput_seeds.hex,
// which PostgreSQL 15 produced.
func seeds(t testing.TB) [][]byte {
	t.Helper()
	f, err := os.Open("testdata/pgoutput_seeds.hex")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		b, err := hex.DecodeString(line)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// encode writes m back in pgoutput's format, taking column values from
// src (the message m was decoded from): decode's inverse, for the kinds it
// decodes fully.
func encode(m *message, src []byte) []byte {
	b := []byte{m.kind}
	u32 := func(v uint32) { b = binary.BigEndian.AppendUint32(b, v) }
	u64 := func(v uint64) { b = binary.BigEndian.AppendUint64(b, v) }
	str := func(s string) { b = append(append(b, s...), 0) }
	tuple := func(cols []tupleCol) {
		b = binary.BigEndian.AppendUint16(b, uint16(len(cols)))
		for _, c := range cols {
			b = append(b, c.kind)
			if c.kind == colText || c.kind == colBinary {
				u32(uint32(c.n))
				b = append(b, src[c.off:c.off+c.n]...)
			}
		}
	}
	switch m.kind {
	case msgBegin:
		u64(uint64(m.finalLSN))
		u64(uint64(m.commitTime))
		u32(m.xid)
	case msgCommit:
		b = append(b, 0)
		u64(uint64(m.commitLSN))
		u64(uint64(m.endLSN))
		u64(uint64(m.commitTime))
	case msgRelation:
		u32(m.rel.relid)
		str(m.rel.namespace)
		str(m.rel.name)
		b = append(b, m.rel.identity)
		b = binary.BigEndian.AppendUint16(b, uint16(len(m.rel.cols)))
		for _, c := range m.rel.cols {
			flags := byte(0)
			if c.key {
				flags = 1
			}
			b = append(b, flags)
			str(c.name)
			u32(c.oid)
			u32(uint32(c.typmod))
		}
	case msgInsert:
		u32(m.relid)
		b = append(b, 'N')
		tuple(m.new)
	case msgUpdate:
		u32(m.relid)
		if m.oldKind != 0 {
			b = append(b, m.oldKind)
			tuple(m.old)
		}
		b = append(b, 'N')
		tuple(m.new)
	case msgDelete:
		u32(m.relid)
		b = append(b, m.oldKind)
		tuple(m.old)
	case msgTruncate:
		u32(uint32(len(m.truncRelids)))
		if m.truncCascade {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		for _, r := range m.truncRelids {
			u32(r)
		}
	default:
		return append([]byte(nil), src...)
	}
	return b
}

// TestDecodeSeeds decodes real pgoutput messages and writes them back
// byte for byte.
func TestDecodeSeeds(t *testing.T) {
	kinds := map[byte]int{}
	for _, s := range seeds(t) {
		var m message
		if err := decode(s, &m); err != nil {
			t.Fatalf("%x: %v", s, err)
		}
		kinds[m.kind]++
		if got := encode(&m, s); !bytes.Equal(got, s) {
			t.Errorf("round trip of %q message:\n got %x\nwant %x", m.kind, got, s)
		}
	}
	for _, k := range []byte("BCRYIUDT") {
		if kinds[k] == 0 {
			t.Errorf("no %q message among the seeds", k)
		}
	}
}

// TestDecodeTruncated checks that every proper prefix of a real message is
// an error, never a panic or a short read taken for a message.
func TestDecodeTruncated(t *testing.T) {
	for _, s := range seeds(t) {
		if s[0] == msgType {
			continue // decoded by kind only
		}
		for n := 0; n < len(s); n++ {
			var m message
			if err := decode(s[:n], &m); err == nil {
				t.Errorf("prefix %x of %x decoded", s[:n], s)
			}
		}
	}
}

// fuzzTable is a table whose columns cover the parsers the stream uses.
func fuzzTable() *table {
	cols := []sources.Column{
		{Name: "i", Type: types.TypeInt4}, {Name: "t", Type: types.TypeText}, {Name: "a", Type: types.ArrayOf(types.TypeInt4)},
		{Name: "m", Type: types.TypeText}, {Name: "j", Type: types.TypeJSONB}, {Name: "ts", Type: types.TypeTimestampTZ},
		{Name: "n", Type: types.TypeNumeric}, {Name: "x", Type: types.TypeInt4},
	}
	return newTable(Table{Schema: "public", Name: "s", Output: sources.Output{Name: "s", Columns: cols, Key: []int{0}}}, 0)
}

// FuzzPgoutput feeds arbitrary bytes to the decoder and what it accepts
// to the row decoder: neither may panic, and what decodes must encode
// into bytes that decode to the same message.
func FuzzPgoutput(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	tbl := fuzzTable()
	f.Fuzz(func(t *testing.T, data []byte) {
		var m message
		if err := decode(data, &m); err != nil {
			return
		}
		// Flag bits the decoder ignores do not survive encoding, so the
		// property is that encoding is stable: encode ∘ decode of an
		// encoding gives it back.
		enc := encode(&m, data)
		var m2 message
		if err := decode(enc, &m2); err != nil {
			t.Fatalf("decoding the encoding %x of %x: %v", enc, data, err)
		}
		if again := encode(&m2, enc); !bytes.Equal(again, enc) {
			t.Fatalf("encoding of %q message not stable:\n%x\n%x", m.kind, enc, again)
		}
		s := string(data)
		for _, cols := range [][]tupleCol{m.new, m.old} {
			if (m.kind == msgInsert || m.kind == msgUpdate || m.kind == msgDelete) && len(cols) >= len(tbl.cols) {
				row, key, _, _ := tbl.decodeRow(s, cols, nil)
				if len(row) != len(tbl.cols) || len(key) != 1 {
					t.Fatalf("row %v key %v", row, key)
				}
				rawRecord(s, cols, tbl.key)
			}
		}
	})
}
