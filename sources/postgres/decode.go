package postgres

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// badValue is a value streamdb cannot represent (a timestamp past its
// range, a multidimensional array, …): the change holding it becomes a
// dead letter.
type badValue struct {
	col int
	err error
}

func (b *badValue) message(t *table) string {
	return fmt.Sprintf("column %q of table %s: %v", t.cols[b.col].Name, t.qname, b.err)
}

// decodeRow parses a tuple of message text s (pgoutput's text values) into
// a row of t's current layout and, for an upsert output, the row's key
// (sharing one allocation). A column pgoutput marks unchanged (a TOASTed
// value the update left alone) takes its value from base when base is
// given, else stays NULL and is listed in unchanged.
func (t *table) decodeRow(s string, cols []tupleCol, base types.Row) (row, key types.Row, unchanged []int, bad *badValue) {
	n := len(t.cols)
	buf := make(types.Row, n+len(t.key))
	row = buf[:n:n]
	for i, c := range cols[:n] {
		switch c.kind {
		case colNull:
		case colUnchanged:
			if base != nil {
				row[i] = base[i]
			} else {
				unchanged = append(unchanged, i)
			}
		case colText:
			d, err := types.ParseText(s[c.off:c.off+c.n], t.cols[i].Type, nil)
			if err != nil {
				if bad == nil {
					bad = &badValue{col: i, err: err}
				}
				continue
			}
			row[i] = d
		default:
			if bad == nil {
				bad = &badValue{col: i, err: fmt.Errorf("unexpected tuple column kind %q", c.kind)}
			}
		}
	}
	if t.key != nil {
		key = buf[n:]
		for i, k := range t.key {
			key[i] = row[k]
		}
	}
	return row, key, unchanged, bad
}

// keyComplete reports whether a tuple carries every key column.
func (t *table) keyComplete(cols []tupleCol) bool {
	for _, k := range t.key {
		if cols[k].kind != colText {
			return false
		}
	}
	return true
}

// rawRecord renders a tuple's text values as a record literal, for dead
// letters: (1,abc,) with NULL and unchanged values empty. only, when not
// nil, picks the columns.
func rawRecord(s string, cols []tupleCol, only []int) []byte {
	var b strings.Builder
	b.WriteByte('(')
	write := func(i int) {
		c := cols[i]
		if c.kind != colText && c.kind != colBinary {
			return
		}
		v := s[c.off : c.off+c.n]
		if v == "" || strings.ContainsAny(v, `,()"\ `) {
			b.WriteByte('"')
			b.WriteString(strings.NewReplacer(`"`, `""`, `\`, `\\`).Replace(v))
			b.WriteByte('"')
			return
		}
		b.WriteString(v)
	}
	if only == nil {
		for i := range cols {
			if i > 0 {
				b.WriteByte(',')
			}
			write(i)
		}
	} else {
		for j, i := range only {
			if j > 0 {
				b.WriteByte(',')
			}
			if i < len(cols) {
				write(i)
			}
		}
	}
	b.WriteByte(')')
	return []byte(b.String())
}
