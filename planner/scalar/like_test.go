package scalar

import (
	"regexp"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// likeRegexp is a reference LIKE matcher built on regexp.
func likeRegexp(pat string) (*regexp.Regexp, bool) {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		case '\\':
			if i+1 == len(rs) {
				return nil, false
			}
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String()), true
}

func TestLike(t *testing.T) {
	for _, tc := range []struct {
		s, p string
		want bool
	}{
		{"abc", "abc", true}, {"abc", "a%", true}, {"abc", "%c", true}, {"abc", "%b%", true},
		{"abc", "a_c", true}, {"abc", "a_", false}, {"", "%", true}, {"", "_", false},
		{"héllo", "h_llo", true}, {"a%b", `a\%b`, true}, {"axb", `a\%b`, false},
		{"aaa", "%a%a%a%", true}, {"aa", "%a%a%a%", false}, {"mississippi", "%iss%pi", true},
		{"abcabc", "%bc", true}, {"ab", "a%%b", true}, {"ab", "%%", true},
	} {
		got, err := like(tc.s, tc.p, false)
		if err != nil || got != tc.want {
			t.Errorf("%q LIKE %q = %v, %v", tc.s, tc.p, got, err)
		}
		if re, ok := likeRegexp(tc.p); ok && re.MatchString(tc.s) != tc.want {
			t.Errorf("reference disagrees on %q LIKE %q", tc.s, tc.p)
		}
	}
	if m, err := like("ABC", "a%", true); !m || err != nil {
		t.Error("ILIKE")
	}
	// A trailing escape is only an error when matching reaches it.
	if _, err := like("abcd", `abc\`, false); err == nil {
		t.Error("trailing escape reached without error")
	}
	if m, err := like("abc", `abc\`, false); m || err != nil {
		t.Errorf("trailing escape not reached: %v %v", m, err)
	}
}

// TestLikePrepared checks that the constant-pattern fast paths agree with
// the general matcher.
func TestLikePrepared(t *testing.T) {
	pats := []string{"abc", "a%", "%c", "%b%", "%", "", "%%", "a%c", "_b_"}
	strs := []string{"", "a", "abc", "xbc", "abx", "b", "ab"}
	for _, p := range pats {
		e := &Call{Fn: lib.binOps["~~"][0], Args: []Expr{col(0, textT), NewConst(types.NewText(p), textT)}}
		ev, err := Compile(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strs {
			d, err := ev(nil, types.Row{types.NewText(s)})
			want, _ := like(s, p, false)
			if err != nil || d.Bool() != want {
				t.Errorf("%q LIKE %q: compiled %v, general %v", s, p, d.Bool(), want)
			}
		}
	}
}

func FuzzLike(f *testing.F) {
	for _, seed := range [][2]string{{"abc", "a%c"}, {"héllo", "h_l%"}, {"a%b", `a\%b`}, {"x", `\`}, {"", "%_%"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, s, p string) {
		got, err := like(s, p, false)
		like(s, p, true)
		if err != nil {
			return
		}
		re, ok := likeRegexp(p)
		if !ok || !isUTF8(s) || !isUTF8(p) {
			return
		}
		if want := re.MatchString(s); got != want {
			t.Fatalf("%q LIKE %q = %v, reference %v", s, p, got, want)
		}
	})
}

func isUTF8(s string) bool {
	return strings.ToValidUTF8(s, "\uFFFD") == s && !strings.ContainsRune(s, '\uFFFD')
}
