package scram

import (
	"bytes"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

// TestRFC7677 replays the example exchange of RFC 7677 section 3: user
// "user", password "pencil", the RFC's salt and both nonces.
func TestRFC7677(t *testing.T) {
	salt := []byte{0x5b, 0x6d, 0x99, 0x68, 0x9d, 0x12, 0x35, 0x8e, 0xec, 0xa0, 0x4b, 0x14, 0x12, 0x36, 0xfa, 0x81}
	v := FromPassword("pencil", salt, 4096)
	s, err := NewServer(Mechanism, v, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.serverNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
	first, err := s.First([]byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"; string(first) != want {
		t.Fatalf("server-first %q, want %q", first, want)
	}
	final, ok, err := s.Final([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if err != nil || !ok {
		t.Fatalf("final: ok=%v err=%v", ok, err)
	}
	if want := "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="; string(final) != want {
		t.Fatalf("server-final %q, want %q", final, want)
	}
}

// TestExchange runs whole exchanges: the outcome for right and wrong
// passwords, doomed exchanges and channel binding.
func TestExchange(t *testing.T) {
	v := New("secret")
	cbind := bytes.Repeat([]byte{7}, 32)
	tests := []struct {
		name      string
		mechanism string
		password  string
		header    string
		clientCB  []byte // channel-binding data the client sends with 'p'
		serverCB  []byte // the server's, nil without TLS
		doomed    bool
		mutate    func(string) string
		ok        bool
		code      pgerr.Code // of a final message that is refused
	}{
		{name: "right password", mechanism: Mechanism, password: "secret", header: "n,,", ok: true},
		{name: "wrong password", mechanism: Mechanism, password: "Secret", header: "n,,"},
		{name: "doomed", mechanism: Mechanism, password: "secret", header: "n,,", doomed: true},
		{name: "y without binding offered", mechanism: Mechanism, password: "secret", header: "y,,", ok: true},
		{name: "plus", mechanism: MechanismPlus, password: "secret", header: cbindHeader, clientCB: cbind, serverCB: cbind, ok: true},
		{name: "plus wrong password", mechanism: MechanismPlus, password: "x", header: cbindHeader, clientCB: cbind, serverCB: cbind},
		{name: "plus other certificate", mechanism: MechanismPlus, password: "secret", header: cbindHeader,
			clientCB: bytes.Repeat([]byte{8}, 32), serverCB: cbind, code: pgerr.InvalidAuthorization},
		{name: "n over TLS", mechanism: Mechanism, password: "secret", header: "n,,", serverCB: cbind, ok: true},
		{name: "nonce changed", mechanism: Mechanism, password: "secret", header: "n,,",
			mutate: func(s string) string { return s + "x" }, code: pgerr.ProtocolViolation},
		{name: "binding flag changed", mechanism: Mechanism, password: "secret", header: "n,,",
			mutate: func(s string) string { return strings.Replace(s, "c=biws", "c=eSws", 1) }, code: pgerr.ProtocolViolation},
		{name: "extension before proof", mechanism: Mechanism, password: "secret", header: "n,,",
			mutate: func(s string) string { return s + ",x=ignored" }, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewServer(tt.mechanism, v, tt.doomed, tt.serverCB)
			if err != nil {
				t.Fatal(err)
			}
			c := &client{password: tt.password, header: tt.header, cbind: tt.clientCB, nonce: "abcdef"}
			first, err := s.First(c.first())
			if err != nil {
				t.Fatal(err)
			}
			clientFinal := c.final(first, tt.mutate)
			final, ok, err := s.Final(clientFinal)
			if tt.code != "" {
				if e := pgerr.As(err); e == nil || e.Code != tt.code {
					t.Fatalf("err = %v, want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if ok && string(final) != c.serverSignature(clientFinal) {
				t.Errorf("server-final %q, want %q", final, c.serverSignature(clientFinal))
			}
		})
	}
}

// TestMalformed checks PostgreSQL's errors for messages it refuses; the
// pgwire tests compare the same messages with a running PostgreSQL.
func TestMalformed(t *testing.T) {
	cbind := []byte("hash")
	tests := []struct {
		mechanism string
		cbind     []byte
		first     string
		final     string // sent after a good first message when set
		want      string // code: message (detail)
	}{
		{mechanism: "SCRAM-SHA-1", want: "08P01: client selected an invalid SASL authentication mechanism"},
		{mechanism: MechanismPlus, want: "08P01: client selected an invalid SASL authentication mechanism"},
		{first: "", want: "08P01: malformed SCRAM message (The message is empty.)"},
		{first: "n,,n=,r=a\x00b", want: "08P01: malformed SCRAM message (Message length does not match input length.)"},
		{first: "x,,n=,r=abc", want: `08P01: malformed SCRAM message (Unexpected channel-binding flag "'x'".)`},
		{first: "n", want: `08P01: malformed SCRAM message (Comma expected, but found character "0x00".)`},
		{first: "n,a=bob,n=,r=abc", want: "0A000: client uses authorization identity, but it is not supported"},
		{first: "n,b,n=,r=abc", want: `08P01: malformed SCRAM message (Unexpected attribute "'b'" in client-first-message.)`},
		{first: "n,,m=x,n=,r=abc", want: "0A000: client requires an unsupported SCRAM extension"},
		{first: "n,,r=abc", want: `08P01: malformed SCRAM message (Expected attribute "n" but found "'r'".)`},
		{first: "n,,n", want: `08P01: malformed SCRAM message (Expected character "=" for attribute "n".)`},
		{first: "n,,n=,r=a\tb", want: "08P01: non-printable characters in SCRAM nonce"},
		{first: "n,,n=,r=abc,1", want: `08P01: malformed SCRAM message (Attribute expected, but found invalid character "'1'".)`},
		{first: "p=tls-server-end-point,,n=,r=abc", want: "08P01: malformed SCRAM message (The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.)"},
		{first: "y,,n=,r=abc", cbind: cbind, want: "28000: SCRAM channel binding negotiation error (The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding.)"},
		{mechanism: MechanismPlus, cbind: cbind, first: "n,,n=,r=abc", want: "08P01: malformed SCRAM message (The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data.)"},
		{mechanism: MechanismPlus, cbind: cbind, first: "p=tls-unique,,n=,r=abc", want: `08P01: unsupported SCRAM channel-binding type "tls-unique"`},
		{final: "r=x,p=abc", want: `08P01: malformed SCRAM message (Expected attribute "c" but found "'r'".)`},
		{final: "c=eSws,r=x,p=abc", want: "08P01: unexpected SCRAM channel-binding attribute in client-final-message"},
		{final: "c=biws,r=x", want: "08P01: malformed SCRAM message (Attribute expected, but found end of string.)"},
		{final: "c=biws,r=x,p=abc", want: "08P01: malformed SCRAM message (Malformed proof in client-final-message.)"},
		{final: "c=biws,r=x,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=,x=1", want: "08P01: malformed SCRAM message (Garbage found at the end of client-final-message.)"},
	}
	for _, tt := range tests {
		mech := tt.mechanism
		if mech == "" {
			mech = Mechanism
		}
		t.Run(mech+" "+tt.first+tt.final, func(t *testing.T) {
			s, err := NewServer(mech, New("pw"), false, tt.cbind)
			if err == nil {
				first := tt.first
				if tt.final != "" {
					first = "n,,n=,r=abc"
				}
				_, err = s.First([]byte(first))
				if err == nil && tt.final != "" {
					_, _, err = s.Final([]byte(tt.final))
				}
			}
			if got := render(err); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func render(err error) string {
	e := pgerr.As(err)
	if e == nil {
		return "no error"
	}
	s := string(e.Code) + ": " + e.Message
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

func FuzzServer(f *testing.F) {
	f.Add([]byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"), []byte("c=biws,r=x,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	f.Add([]byte("p=tls-server-end-point,,n=,r=a,x=y"), []byte("c=,r=,p="))
	v := New("pw")
	f.Fuzz(func(t *testing.T, first, final []byte) {
		for _, mech := range []string{Mechanism, MechanismPlus} {
			s, err := NewServer(mech, v, false, []byte("hash"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.First(first); err != nil {
				if pgerr.As(err) == nil {
					t.Fatalf("error without SQLSTATE: %v", err)
				}
				continue
			}
			_, ok, err := s.Final(final)
			if err != nil && pgerr.As(err) == nil {
				t.Fatalf("error without SQLSTATE: %v", err)
			}
			if ok {
				t.Fatalf("fuzzed proof accepted: %q %q", first, final)
			}
		}
	})
}
