package pgwire

import (
	"encoding/binary"

	"github.com/streamdb/streamdb/types"
)

// Result formats as sent in Bind: each column is text or binary.
const (
	formatText   int16 = 0
	formatBinary int16 = 1
)

// formatOf returns column i's format under PostgreSQL's rule for a list of
// format codes: none means all text, one applies to every column, otherwise
// there is one per column.
func formatOf(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return formatText
	case 1:
		return formats[0]
	}
	return formats[i]
}

// appendDataRow encodes a DataRow message straight into dst: values are
// appended in place and their lengths patched afterwards, so a row costs no
// allocation beyond the buffer's growth. row must have one value per column.
func appendDataRow(dst []byte, row types.Row, cols []Column, formats []int16, cfg *types.TextConfig) []byte {
	start := len(dst)
	dst = append(dst, 'D', 0, 0, 0, 0, byte(len(row)>>8), byte(len(row)))
	for i, d := range row {
		if d.IsNull() {
			dst = append(dst, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		if formatOf(formats, i) == formatBinary {
			dst = types.AppendBinary(dst, d, cols[i].Type)
		} else {
			dst = types.AppendText(dst, d, cols[i].Type, cfg)
		}
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	binary.BigEndian.PutUint32(dst[start+1:], uint32(len(dst)-start-1))
	return dst
}

// appendRowDescription encodes a RowDescription message into dst.
func appendRowDescription(dst []byte, cols []Column, formats []int16) []byte {
	start := len(dst)
	dst = append(dst, 'T', 0, 0, 0, 0, byte(len(cols)>>8), byte(len(cols)))
	for i, c := range cols {
		dst = append(dst, c.Name...)
		dst = append(dst, 0)
		dst = binary.BigEndian.AppendUint32(dst, c.TableOID)
		dst = binary.BigEndian.AppendUint16(dst, uint16(c.Attr))
		dst = binary.BigEndian.AppendUint32(dst, c.Type.OID())
		dst = binary.BigEndian.AppendUint16(dst, uint16(c.Type.Size()))
		dst = binary.BigEndian.AppendUint32(dst, uint32(c.Type.TypMod()))
		dst = binary.BigEndian.AppendUint16(dst, uint16(formatOf(formats, i)))
	}
	binary.BigEndian.PutUint32(dst[start+1:], uint32(len(dst)-start-1))
	return dst
}
