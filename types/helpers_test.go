package types

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// debugDatum prints a Datum's family and payload for test failures.
func debugDatum(d Datum) string {
	switch d.kind {
	case Unknown:
		return "NULL"
	case Numeric:
		form := "apd"
		if d.p == nil {
			form = "inline"
		}
		return fmt.Sprintf("numeric(%s, %s)", d.Decimal(), form)
	case Float4, Float8:
		return fmt.Sprintf("%v(%v)", d.kind, d.Float())
	case Interval:
		return fmt.Sprintf("interval(%+v)", d.Interval())
	case Array:
		var parts []string
		for _, e := range d.arr().Elems {
			parts = append(parts, debugDatum(e))
		}
		return fmt.Sprintf("array<%v>[%s]", d.arr().Elem, strings.Join(parts, ", "))
	case Text, Varchar, Char, Name, Bytea, JSON, JSONB, UUID:
		return fmt.Sprintf("%v(%q)", d.kind, d.str())
	}
	return fmt.Sprintf("%v(%d)", d.kind, d.i)
}

// benchRow is a typical row for benchmarks: ids, a name, an amount, a
// timestamp and a flag.
func benchRow() Row {
	amount, _, _ := apd.NewFromString("1234.56")
	return Row{NewInt8(123456789), NewInt4(42), NewText("customer-000042"), NewNumeric(amount),
		NewTimestampTZ(1700000000000000), NewBool(true), NewFloat8(3.25), Null}
}

func mustLoad(t testing.TB, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
