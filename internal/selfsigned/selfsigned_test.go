package selfsigned

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"
)

// TestNew checks that the certificate verifies for the loopback names
// against its own pool, and that its PEM forms load as a key pair.
func TestNew(t *testing.T) {
	c, err := New("test", time.Hour, "example.internal")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"localhost", "127.0.0.1", "::1", "example.internal"} {
		if _, err := c.TLS.Leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: c.Pool}); err != nil {
			t.Errorf("verify for %s: %v", name, err)
		}
	}
	if _, err := c.TLS.Leaf.Verify(x509.VerifyOptions{DNSName: "elsewhere.example", Roots: c.Pool}); err == nil {
		t.Error("verified for a name it does not hold")
	}
	if _, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM); err != nil {
		t.Errorf("PEM pair: %v", err)
	}
}
