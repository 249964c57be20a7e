package scram

import (
	"bytes"
	"testing"
)

func TestVerifierRoundTrip(t *testing.T) {
	v := New("correct horse")
	w, err := Parse(v.String())
	if err != nil {
		t.Fatal(err)
	}
	if w.String() != v.String() || w.Iterations != DefaultIterations || len(w.Salt) != saltLen {
		t.Fatalf("round trip: %s -> %s", v, w)
	}
	if !w.Check("correct horse") || w.Check("correct horse ") || w.Check("") {
		t.Error("Check accepts the wrong password or refuses the right one")
	}
	if New("correct horse").String() == v.String() {
		t.Error("two verifiers of one password share a salt")
	}
}

func TestParseRefuses(t *testing.T) {
	good := New("x").String()
	for _, s := range []string{
		"",
		"secret",
		"md5a3556571e93b0d20722ba62be61e8c2d",
		"SCRAM-SHA-256$4096:c2FsdA==",
		"SCRAM-SHA-256$0:c2FsdA==$" + good[len(good)-89:],
		"SCRAM-SHA-256$x:c2FsdA==$" + good[len(good)-89:],
		"SCRAM-SHA-256$4096:$" + good[len(good)-89:],
		"SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA",
		"SCRAM-SHA-256$4096:c2FsdA==$" + good[len(good)-89:len(good)-45] + ":!!",
	} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
	if _, err := Parse("SCRAM-SHA-256$4096:c2FsdA==$" + good[len(good)-89:]); err != nil {
		t.Errorf("Parse of a well-formed verifier: %v", err)
	}
}

// TestMock checks that a mock verifier's salt depends on the name and the
// nonce only, so that it is the same for the same name every time.
func TestMock(t *testing.T) {
	a, b := Mock("nobody", []byte("nonce")), Mock("nobody", []byte("nonce"))
	if !bytes.Equal(a.Salt, b.Salt) || len(a.Salt) != saltLen || a.Iterations != DefaultIterations {
		t.Errorf("mock salts differ for one name: %x %x", a.Salt, b.Salt)
	}
	if bytes.Equal(a.Salt, Mock("somebody", []byte("nonce")).Salt) || bytes.Equal(a.Salt, Mock("nobody", []byte("other")).Salt) {
		t.Error("mock salt does not depend on the name and the nonce")
	}
	if a.Check("") {
		t.Error("a mock verifier accepts the empty password")
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"ctrl\x01ascii", "ctrl\x01ascii"}, // ASCII is used as is
		{"I\u00adX", "IX"},                 // soft hyphen maps to nothing
		{"a\u00a0b", "a b"},                // non-ASCII space
		{"\ufb01x", "fix"},                 // NFKC: the ligature ﬁ
		{"\u2168", "IX"},                   // NFKC: Roman numeral nine
		{"a\u0007\u00e9", "a\u0007\u00e9"}, // prohibited control character: raw
		{"\u0627a", "\u0627a"},             // RandALCat and LCat mixed: raw
		{"\u00ad", "\u00ad"},               // nothing left: raw
		{"\xff\xfe", "\xff\xfe"},           // invalid UTF-8: raw
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkWrongPassword is the server's cost of one wrong password:
// over SCRAM (the whole exchange, with a proof that does not match) and in
// cleartext (PBKDF2 of the guess). The first is what a flood of guesses
// costs; the second is why cleartext checks are rationed.
func BenchmarkWrongPassword(b *testing.B) {
	v := New("secret")
	b.Run("scram", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, _ := NewServer(Mechanism, v, false, nil)
			if _, err := s.First([]byte("n,,n=,r=abcdef")); err != nil {
				b.Fatal(err)
			}
			_, ok, err := s.Final([]byte("c=biws,r=abcdef" + s.serverNonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
			if ok || err != nil {
				b.Fatal(ok, err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "attempts/s")
	})
	b.Run("cleartext", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if v.Check("wrong") {
				b.Fatal("accepted")
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "attempts/s")
	})
}
