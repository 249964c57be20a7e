package sqllogictest

import (
	"crypto/md5"
	"encoding/hex"
	"io"
	"slices"
	"strconv"
	"strings"
)

// resultSet is a query result after normalisation: the values in row-major
// order, one string per value as it is printed in a file.
type resultSet struct {
	ncols  int
	values []string
}

func (rs *resultSet) reset(ncols int) {
	rs.ncols = ncols
	rs.values = rs.values[:0]
}

func (rs *resultSet) rows() int {
	if rs.ncols == 0 {
		return 0
	}
	return len(rs.values) / rs.ncols
}

// sort orders the result as the record's sort mode asks: rowsort compares
// whole rows column by column, valuesort every value on its own, both
// bytewise like the reference runner's strcmp.
func (rs *resultSet) sort(mode SortMode) {
	switch mode {
	case ValueSort:
		slices.Sort(rs.values)
	case RowSort:
		n := rs.rows()
		if n < 2 {
			return
		}
		rows := make([][]string, n)
		for i := range rows {
			rows[i] = rs.values[i*rs.ncols : (i+1)*rs.ncols : (i+1)*rs.ncols]
		}
		slices.SortFunc(rows, slices.Compare)
		sorted := make([]string, 0, len(rs.values))
		for _, r := range rows {
			sorted = append(sorted, r...)
		}
		rs.values = sorted
	}
}

// hash returns "N values hashing to H": H is the MD5 of every value followed
// by "\n", as the reference runner computes it.
func (rs *resultSet) hash() string {
	h := md5.New()
	nl := []byte{'\n'}
	for _, v := range rs.values {
		io.WriteString(h, v)
		h.Write(nl)
	}
	var sum [md5.Size]byte
	return strconv.Itoa(len(rs.values)) + " values hashing to " + hex.EncodeToString(h.Sum(sum[:0]))
}

// isHashLine reports whether s has the form "N values hashing to H".
func isHashLine(s string) bool {
	n, h, ok := strings.Cut(s, " values hashing to ")
	if !ok || n == "" || len(h) != 2*md5.Size {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// matches reports whether the result equals the expected lines. An
// expected result written as a single hash line is compared by hash
// whatever the threshold, so a file may show small results either way; in
// rowwise (cockroach) layout each expected line is one row with its values
// separated by single spaces.
func (rs *resultSet) matches(expected []string, rowwise bool) bool {
	if len(expected) == 1 && isHashLine(expected[0]) && !(len(rs.values) == 1 && rs.values[0] == expected[0]) {
		return rs.hash() == expected[0]
	}
	if rowwise && rs.ncols > 1 {
		if len(expected) != rs.rows() {
			return false
		}
		for i, line := range expected {
			if !rowEquals(line, rs.values[i*rs.ncols:(i+1)*rs.ncols]) {
				return false
			}
		}
		return true
	}
	return slices.Equal(expected, rs.values)
}

// rowEquals reports whether line is the values joined by single spaces,
// without building the joined string.
func rowEquals(line string, values []string) bool {
	for i, v := range values {
		if i > 0 {
			if line == "" || line[0] != ' ' {
				return false
			}
			line = line[1:]
		}
		if !strings.HasPrefix(line, v) {
			return false
		}
		line = line[len(v):]
	}
	return line == ""
}

// lines renders the result as a file shows it: the hash line when the
// result has more values than a non-zero threshold, else one value (or in
// rowwise layout one row) per line.
func (rs *resultSet) lines(threshold int, rowwise bool) []string {
	if threshold > 0 && len(rs.values) > threshold {
		return []string{rs.hash()}
	}
	if !rowwise || rs.ncols < 2 {
		return slices.Clone(rs.values)
	}
	out := make([]string, 0, rs.rows())
	for i := 0; i < rs.rows(); i++ {
		out = append(out, strings.Join(rs.values[i*rs.ncols:(i+1)*rs.ncols], " "))
	}
	return out
}
