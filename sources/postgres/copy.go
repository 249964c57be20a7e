package postgres

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// copySignature starts PostgreSQL's binary COPY format.
var copySignature = []byte("PGCOPY\n\xff\r\n\x00")

// copyDecoder is an io.Writer that splits a binary COPY stream into rows,
// handing each row's bytes and its fields' spans in them to row (valid
// only during the call). pgconn writes one CopyData message at a time,
// which PostgreSQL fills with one row; rows split across writes are put
// together in buf.
type copyDecoder struct {
	ncols  int
	row    func(data []byte, fields []span) error
	buf    []byte
	fields []span
	header bool
	done   bool
}

// span is a field of a COPY row: bytes [off, off+n) of the row, or NULL.
type span struct {
	off, n int
	null   bool
}

func (d *copyDecoder) Write(p []byte) (int, error) {
	data := p
	if len(d.buf) > 0 {
		d.buf = append(d.buf, p...)
		data = d.buf
	}
	n, err := d.consume(data)
	if err != nil {
		return 0, err
	}
	rest := data[n:]
	if len(d.buf) > 0 {
		d.buf = append(d.buf[:0], rest...)
	} else {
		d.buf = append(d.buf, rest...)
	}
	return len(p), nil
}

// consume reads the complete rows at the start of data, returning how many
// bytes they took.
func (d *copyDecoder) consume(data []byte) (int, error) {
	off := 0
	if !d.header {
		if len(data) < len(copySignature)+8 {
			return 0, nil
		}
		if !bytes.Equal(data[:len(copySignature)], copySignature) {
			return 0, fmt.Errorf("binary COPY data has no signature")
		}
		ext := int(binary.BigEndian.Uint32(data[len(copySignature)+4:]))
		off = len(copySignature) + 8 + ext
		if len(data) < off {
			return 0, nil
		}
		d.header = true
	}
	for off+2 <= len(data) {
		if d.done {
			return 0, fmt.Errorf("binary COPY data after its trailer")
		}
		n := int(int16(binary.BigEndian.Uint16(data[off:])))
		if n == -1 {
			d.done = true
			off += 2
			continue
		}
		if n != d.ncols {
			return 0, fmt.Errorf("binary COPY row has %d fields, expected %d", n, d.ncols)
		}
		p := off + 2
		d.fields = d.fields[:0]
		start := off
		complete := true
		for range n {
			if p+4 > len(data) {
				complete = false
				break
			}
			l := int(int32(binary.BigEndian.Uint32(data[p:])))
			p += 4
			if l == -1 {
				d.fields = append(d.fields, span{null: true})
				continue
			}
			if l < 0 {
				return 0, fmt.Errorf("binary COPY field of length %d", l)
			}
			if p+l > len(data) {
				complete = false
				break
			}
			d.fields = append(d.fields, span{off: p - start, n: l})
			p += l
		}
		if !complete {
			break
		}
		if err := d.row(data[start:p], d.fields); err != nil {
			return 0, err
		}
		off = p
	}
	return off, nil
}
