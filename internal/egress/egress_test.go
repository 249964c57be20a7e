package egress

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

// TestCheck runs destinations through a policy with a fake resolver.
func TestCheck(t *testing.T) {
	p, err := Parse("kafka.internal, 10.1.0.0/16, 192.0.2.7, ::1")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string][]netip.Addr{
		"in.example":    {netip.MustParseAddr("10.1.2.3")},
		"mixed.example": {netip.MustParseAddr("10.1.2.3"), netip.MustParseAddr("169.254.169.254")},
		"out.example":   {netip.MustParseAddr("127.0.0.1")},
	}
	p.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := names[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	for addr, want := range map[string]bool{
		"kafka.internal:9092":  true,
		"KAFKA.internal.:9092": true,
		"10.1.200.1:9092":      true,
		"10.2.0.1:9092":        false,
		"192.0.2.7:1":          true,
		"192.0.2.8:1":          false,
		"[::1]:5432":           true,
		"in.example:9092":      true,
		"mixed.example:9092":   false,
		"out.example:22":       false,
		"nowhere.example:22":   false,
	} {
		err := p.Check(context.Background(), addr)
		if (err == nil) != want {
			t.Errorf("Check(%s) = %v, want allowed %v", addr, err, want)
		}
		if err != nil && pgerr.CodeOf(err) != pgerr.InsufficientPrivilege {
			t.Errorf("Check(%s): code %s", addr, pgerr.CodeOf(err))
		}
	}
}

// TestParse accepts an empty list as no policy and refuses garbage.
func TestParse(t *testing.T) {
	if p, err := Parse(" , "); p != nil || err != nil {
		t.Errorf("empty list: %v, %v", p, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "host:9092", "a b"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	var none *Policy
	if err := none.Check(context.Background(), "anything:1"); err != nil {
		t.Errorf("nil policy refused: %v", err)
	}
}

// TestDialChecked dials a loopback listener only when the policy lists
// it, and dials the address it checked.
func TestDialChecked(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	allow, _ := Parse("127.0.0.0/8")
	deny, _ := Parse("10.0.0.0/8")
	c, err := allow.Dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatalf("allowed dial: %v", err)
	}
	c.Close()
	if _, err := deny.Dial(context.Background(), "tcp", l.Addr().String()); pgerr.CodeOf(err) != pgerr.InsufficientPrivilege {
		t.Fatalf("denied dial: %v", err)
	}
}
