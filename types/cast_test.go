package types

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

// TestCastGolden checks Cast against PostgreSQL 15's explicit casts in
// testdata/casts.golden (TimeZone America/New_York).
func TestCastGolden(t *testing.T) {
	f, err := os.Open("testdata/casts.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg := DefaultTextConfig()
	cfg.Location = mustLoad(t, "America/New_York")
	sc := bufio.NewScanner(f)
	failures := 0
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if p[3] == `\N` {
			p[3] = "" // the cast returned NULL
		}
		for i := range p {
			p[i] = unescapeCopy(p[i])
		}
		from, to := parseTypeName(t, p[0]), parseTypeName(t, p[1])
		if err := checkCast(from, to, p[2], p[3], p[4], cfg); err != nil {
			failures++
			if failures <= 50 {
				t.Errorf("CAST(%q::%s AS %s): %v", p[2], p[0], p[1], err)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d casts failed", failures)
	}
}

func checkCast(from, to Type, input, want, wantErr string, cfg *TextConfig) error {
	src, err := Cast(NewText(input), TypeUnknown, from, cfg)
	if err != nil {
		return fmt.Errorf("reading input: %v", err)
	}
	if _, ok := CastContext(from, to); !ok {
		if strings.HasPrefix(wantErr, string(pgerr.CannotCoerce)) {
			return nil
		}
		return fmt.Errorf("CastContext says no cast")
	}
	got, err := Cast(src, from, to, cfg)
	if want == "ERROR" {
		if err == nil {
			return fmt.Errorf("got %q, want error %s", FormatText(got, to, cfg), wantErr)
		}
		if e := pgerr.As(err); e == nil || string(e.Code)+": "+e.Message != wantErr {
			return fmt.Errorf("error %q (%s), want %s", err, pgerr.CodeOf(err), wantErr)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("error %v, want %q", err, want)
	}
	if got.IsNull() && want == "" {
		return nil
	}
	if s := FormatText(got, to, cfg); s != want {
		return fmt.Errorf("got %q, want %q", s, want)
	}
	return nil
}

func TestCastContext(t *testing.T) {
	for _, c := range []struct {
		from, to Type
		want     CastKind
		ok       bool
	}{
		{TypeInt4, TypeInt8, CastImplicit, true},
		{TypeInt8, TypeInt4, CastAssignment, true},
		{TypeInt4, TypeBool, CastExplicit, true},
		{TypeInt4, TypeText, CastAssignment, true},
		{TypeText, TypeInt4, CastExplicit, true},
		{TypeText, TypeVarchar, CastImplicit, true},
		{TypeUnknown, TypeDate, CastImplicit, true},
		{Type{Family: Varchar, Mod: 3}, Type{Family: Varchar, Mod: 5}, CastImplicit, true},
		{ArrayOf(TypeInt4), ArrayOf(TypeInt8), CastImplicit, true},
		{ArrayOf(TypeInt4), TypeText, CastAssignment, true},
		{TypeDate, TypeInt4, 0, false},
		{TypeUUID, TypeBytea, 0, false},
		{TypeJSON, TypeJSONB, CastAssignment, true},
		{TypeTimestamp, TypeTimestampTZ, CastImplicit, true},
	} {
		got, ok := CastContext(c.from, c.to)
		if got != c.want || ok != c.ok {
			t.Errorf("CastContext(%s, %s) = %v %v, want %v %v", c.from, c.to, got, ok, c.want, c.ok)
		}
	}
	if Category(Int4) != 'N' || Category(Text) != 'S' || Category(JSONB) != 'U' || !Preferred(Float8) || Preferred(Int4) {
		t.Error("Category/Preferred disagree with pg_type")
	}
}

func TestCastAssignmentTruncation(t *testing.T) {
	v3 := Type{Family: Varchar, Mod: 3}
	if _, err := CastIn(NewText("abcd"), TypeText, v3, CastAssignment, nil); pgerr.CodeOf(err) != pgerr.StringDataRightTruncation {
		t.Errorf("assignment cast: %v, want 22001", err)
	}
	if d, err := Cast(NewText("abcd"), TypeText, v3, nil); err != nil || d.Str() != "abc" {
		t.Errorf("explicit cast: %v %v, want abc", d, err)
	}
}
