package oracle

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// PostgreSQL type OIDs whose text the comparison reads as numbers.
const (
	oidFloat4  = 700
	oidFloat8  = 701
	oidNumeric = 1700
)

// result is a query's answer as the server sent it: column types and
// rows of text values, or an error.
type result struct {
	oids []uint32
	rows [][]*string // nil is NULL
	// code and msg are the SQLSTATE and message of an error; code is
	// "" for success.
	code, msg string
}

func (r *result) failed() bool { return r.code != "" }

// rowKey encodes a row so that equal rows, and only they, have equal
// keys; with blind set, numbers that differ only in trailing fractional
// zeros count as equal (see normalizeScale).
func rowKey(row []*string, blind bool) string {
	var b strings.Builder
	for _, v := range row {
		if v == nil {
			b.WriteString("N|")
			continue
		}
		s := *v
		if blind {
			s = normalizeScale(s)
		}
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

// normalizeScale strips trailing zeros from the fraction of every
// decimal number in s ("1.50" → "1.5", "{2.00,0.0}" → "{2,0}").
//
// Numerics that are equal but written with different scales are one
// value to DISTINCT, GROUP BY, ORDER BY, min and max, which keep
// whichever representative they meet first, and then print differently.
// An engine may legitimately meet them in another order incrementally
// than in batch (PostgreSQL does, between plans), so the comparison of a
// view with its query must not see the scale; numeric columns are
// compared by value anyway, and this covers numbers inside arrays, jsonb
// and text.
func normalizeScale(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j+1 >= len(s) || s[j] != '.' || s[j+1] < '0' || s[j+1] > '9' {
			b.WriteString(s[i:max(j, i+1)])
			i = max(j, i+1)
			continue
		}
		k := j + 1
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		frac := strings.TrimRight(s[j+1:k], "0")
		b.WriteString(s[i:j])
		if frac != "" {
			b.WriteString("." + frac)
		}
		i = k
	}
	return b.String()
}

// rowText renders a row for humans: values separated by " | ", NULL as
// NULL.
func rowText(row []*string) string {
	parts := make([]string, len(row))
	for i, v := range row {
		if v == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = strconv.Quote(*v)
		}
	}
	return strings.Join(parts, " | ")
}

// numericCols marks the columns compared as numbers: those either side
// declares as numeric or floating point.
func numericCols(a, b *result) []bool {
	out := make([]bool, len(a.oids))
	for i := range out {
		for _, r := range []*result{a, b} {
			if i < len(r.oids) && (r.oids[i] == oidNumeric || r.oids[i] == oidFloat4 || r.oids[i] == oidFloat8) {
				out[i] = true
			}
		}
	}
	return out
}

// closeEnough compares two numbers given as text with a relative
// tolerance: incremental and batch evaluation may sum in different
// orders, and floating point sums (and the digits of a division derived
// from them) then differ in their last places.
func closeEnough(x, y string) bool {
	if x == y {
		return true
	}
	a, err1 := strconv.ParseFloat(x, 64)
	b, err2 := strconv.ParseFloat(y, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b || (math.IsNaN(a) && math.IsNaN(b))
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))+1e-12
}

func rowsClose(x, y []*string, num []bool, blind bool) bool {
	for i := range x {
		switch {
		case x[i] == nil || y[i] == nil:
			if x[i] != y[i] {
				return false
			}
		case num[i]:
			if !closeEnough(*x[i], *y[i]) {
				return false
			}
		case *x[i] == *y[i]:
		case !blind || normalizeScale(*x[i]) != normalizeScale(*y[i]):
			return false
		}
	}
	return true
}

// diff compares two results as multisets of rows. It returns a
// description of the difference, or "" when they agree. Two errors agree
// when their SQLSTATEs do (a view carries a runtime error as data and
// must report it as the query would). Numeric columns compare by value
// within a tolerance; with blind set, so do numbers in other columns,
// up to their scale.
func diff(a, b *result, aName, bName string, blind bool) string {
	switch {
	case a.failed() && b.failed():
		if a.code == b.code {
			return ""
		}
		return fmt.Sprintf("%s fails with %s (%s), %s with %s (%s)", aName, a.code, a.msg, bName, b.code, b.msg)
	case a.failed():
		return fmt.Sprintf("%s fails with %s (%s), %s returns %d rows", aName, a.code, a.msg, bName, len(b.rows))
	case b.failed():
		return fmt.Sprintf("%s returns %d rows, %s fails with %s (%s)", aName, len(a.rows), bName, b.code, b.msg)
	case len(a.oids) != len(b.oids):
		return fmt.Sprintf("%s has %d columns, %s has %d", aName, len(a.oids), bName, len(b.oids))
	}
	onlyA, onlyB := multisetDiff(a, b, blind)
	if len(onlyA) == 0 && len(onlyB) == 0 {
		return ""
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s has %d rows, %s has %d", aName, len(a.rows), bName, len(b.rows))
	show := func(name string, rows [][]*string) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&s, "\n  only in %s (%d):", name, len(rows))
		for i, r := range rows {
			if i == 10 {
				fmt.Fprintf(&s, "\n    …")
				break
			}
			s.WriteString("\n    " + rowText(r))
		}
	}
	show(aName, onlyA)
	show(bName, onlyB)
	return s.String()
}

// multisetDiff returns the rows of a not matched in b and those of b not
// matched in a. Exact matches are taken first; what is left is paired
// greedily under the numeric tolerance.
func multisetDiff(a, b *result, blind bool) (onlyA, onlyB [][]*string) {
	count := map[string]int{}
	for _, r := range b.rows {
		count[rowKey(r, blind)]++
	}
	for _, r := range a.rows {
		k := rowKey(r, blind)
		if count[k] > 0 {
			count[k]--
			continue
		}
		onlyA = append(onlyA, r)
	}
	for _, r := range b.rows {
		k := rowKey(r, blind)
		if count[k] > 0 {
			count[k]--
			onlyB = append(onlyB, r)
		}
	}
	if len(onlyA) == 0 || len(onlyB) == 0 {
		return onlyA, onlyB
	}
	num := numericCols(a, b)
	if !slices.Contains(num, true) {
		return onlyA, onlyB
	}
	var restA [][]*string
	for _, x := range onlyA {
		j := slices.IndexFunc(onlyB, func(y []*string) bool { return rowsClose(x, y, num, blind) })
		if j < 0 {
			restA = append(restA, x)
			continue
		}
		onlyB = slices.Delete(onlyB, j, j+1)
	}
	return restA, onlyB
}
