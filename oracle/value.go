package oracle

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// value is one stored value as the change generator models it. Every type
// maps onto an integer or a string so that the model can evaluate the
// simple predicates of UPDATE and DELETE exactly, without a SQL engine.
type value struct {
	null bool
	// i holds int and bigint values, booleans as 0 and 1, numerics in
	// hundredths, dates as days and timestamps as seconds since epoch.
	i int64
	// scale is the number of fractional digits a numeric literal is
	// written with: 1.5 and 1.50 are equal but print differently, and
	// both must survive every path through the engine.
	scale int8
	s     string
}

// epoch is day zero of generated dates and timestamps.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

var null = value{null: true}

// literal renders v as a SQL literal of type t that PostgreSQL reads back
// as exactly that type in any context, even a VALUES list or a select
// list where an untyped literal would resolve differently.
func (v value) literal(t typ) string {
	if v.null {
		return "NULL::" + t.name()
	}
	switch t {
	case tInt:
		return paren(strconv.FormatInt(v.i, 10))
	case tBigint:
		return paren(strconv.FormatInt(v.i, 10)) + "::bigint"
	case tNumeric:
		if v.scale == 0 {
			return paren(v.numericText()) + "::numeric"
		}
		return paren(v.numericText())
	case tText:
		return "'" + strings.ReplaceAll(v.s, "'", "''") + "'"
	case tBool:
		if v.i != 0 {
			return "true"
		}
		return "false"
	case tDate:
		return "DATE '" + v.text(t) + "'"
	case tTimestamp:
		return "TIMESTAMP '" + v.text(t) + "'"
	}
	panic("oracle: literal of opaque type")
}

// paren wraps a negative number so that "x - -1" never reads as a comment
// and unary minus never binds to the wrong operand.
func paren(s string) string {
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}

// text renders v as PostgreSQL's text output of type t (ISO dates).
func (v value) text(t typ) string {
	switch t {
	case tInt, tBigint:
		return strconv.FormatInt(v.i, 10)
	case tNumeric:
		return v.numericText()
	case tText:
		return v.s
	case tBool:
		if v.i != 0 {
			return "t"
		}
		return "f"
	case tDate:
		return epoch.AddDate(0, 0, int(v.i)).Format("2006-01-02")
	case tTimestamp:
		return epoch.Add(time.Duration(v.i) * time.Second).Format("2006-01-02 15:04:05")
	}
	return fmt.Sprint(v)
}

// numericText prints hundredths with the value's scale (scale 1 is only
// generated for multiples of ten hundredths, so nothing is rounded).
func (v value) numericText() string {
	neg := v.i < 0
	a := v.i
	if neg {
		a = -a
	}
	s := strconv.FormatInt(a/100, 10)
	switch v.scale {
	case 1:
		s += fmt.Sprintf(".%d", (a%100)/10)
	case 2:
		s += fmt.Sprintf(".%02d", a%100)
	}
	if neg {
		s = "-" + s
	}
	return s
}

// compare orders two non-NULL values of one type; text compares bytewise,
// as under PostgreSQL's C collation.
func (v value) compare(w value) int {
	switch {
	case v.s < w.s:
		return -1
	case v.s > w.s:
		return 1
	case v.i < w.i:
		return -1
	case v.i > w.i:
		return 1
	}
	return 0
}
