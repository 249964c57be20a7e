package parser

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// dump prints a statement's fields as an indented tree, leaving out zero
// values, with each positioned value followed by @ and its byte offset.
func dump(stmt Statement) string {
	var b strings.Builder
	v := reflect.ValueOf(stmt).Elem()
	b.WriteString(v.Type().Name())
	b.WriteByte('\n')
	dumpFields(&b, v, "  ")
	return b.String()
}

var stringerType = reflect.TypeFor[fmt.Stringer]()

func dumpFields(b *strings.Builder, v reflect.Value, indent string) {
	for i := range v.NumField() {
		f, ft := v.Field(i), v.Type().Field(i)
		if f.IsZero() || ft.Name == "Pos" && f.Type() == reflect.TypeFor[Pos]() {
			continue
		}
		b.WriteString(indent + ft.Name + ":")
		dumpValue(b, f, indent)
	}
}

func dumpValue(b *strings.Builder, v reflect.Value, indent string) {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if s, ok := leaf(v); ok {
		b.WriteString(" " + s + "\n")
		return
	}
	switch v.Kind() {
	case reflect.Slice:
		b.WriteByte('\n')
		for i := range v.Len() {
			b.WriteString(indent + "  -")
			dumpValue(b, v.Index(i), indent+"  ")
		}
	case reflect.Struct:
		b.WriteString(positionSuffix(v) + "\n")
		dumpFields(b, v, indent+"  ")
	default:
		b.WriteString(" " + fmt.Sprint(v.Interface()) + "\n")
	}
}

// leaf prints the values that print on one line: names, literals, raw text
// and enumerations.
func leaf(v reflect.Value) (string, bool) {
	switch x := v.Interface().(type) {
	case Name:
		return x.String() + "@" + strconv.Itoa(int(x.Pos())), true
	case Raw:
		return strconv.Quote(x.Text) + "@" + strconv.Itoa(int(x.Pos)), true
	case StringOrSecret:
		if x.Inline != nil {
			return leaf(reflect.ValueOf(*x.Inline))
		}
		s, ok := leaf(reflect.ValueOf(x.Secret))
		return "SECRET " + s, ok
	case Ident, StringLit, IntLit, FloatLit, BoolLit:
		return x.(fmt.Stringer).String() + positionSuffix(v), true
	case string:
		return strconv.Quote(x), true
	case bool:
		return strconv.FormatBool(x), true
	}
	if v.Kind() == reflect.Uint8 && v.Type().Implements(stringerType) {
		return v.Interface().(fmt.Stringer).String(), true
	}
	return "", false
}

func positionSuffix(v reflect.Value) string {
	if f := v.FieldByName("Pos"); f.IsValid() && f.Type() == reflect.TypeFor[Pos]() {
		return "@" + strconv.Itoa(int(f.Int()))
	}
	return ""
}

// checkRoundTrip verifies that a statement's String parses back to an equal
// statement (positions aside) and prints the same again.
func checkRoundTrip(t testing.TB, where string, stmt Statement) {
	t.Helper()
	text := stmt.String()
	again, ok, err := Parse(text)
	if err != nil || !ok {
		t.Errorf("%s: %q does not parse back: ok=%v err=%v", where, text, ok, err)
		return
	}
	if again.String() != text {
		t.Errorf("%s: printing is not stable:\n%s\n%s", where, text, again.String())
	}
	a, b := zeroPositions(stmt), zeroPositions(again)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("%s: %q parses back differently:\n%s\n%s", where, text, dump(stmt), dump(again))
	}
}

// zeroPositions returns a deep copy of stmt with every Pos set to zero.
func zeroPositions(stmt Statement) Statement {
	v := reflect.ValueOf(stmt)
	c := reflect.New(v.Elem().Type())
	copyZeroing(c.Elem(), v.Elem())
	return c.Interface().(Statement)
}

func copyZeroing(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.New(src.Elem().Type()))
		copyZeroing(dst.Elem(), src.Elem())
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeSlice(src.Type(), src.Len(), src.Len()))
		for i := range src.Len() {
			copyZeroing(dst.Index(i), src.Index(i))
		}
	case reflect.Struct:
		for i := range src.NumField() {
			copyZeroing(dst.Field(i), src.Field(i))
		}
	default:
		if src.Type() != reflect.TypeFor[Pos]() {
			dst.Set(src)
		}
	}
}
