package main

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
)

// TestSelfSigned creates the pair once, reuses it on the next start, and
// keeps TLS off without flags.
func TestSelfSigned(t *testing.T) {
	dir := t.TempDir()
	cfg, err := tlsConfig("", "", dir, true)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Errorf("certificate does not cover 127.0.0.1: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "server.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", fi, err)
	}
	again, err := tlsConfig("", "", dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if string(again.Certificates[0].Certificate[0]) != string(cfg.Certificates[0].Certificate[0]) {
		t.Error("second start replaced the certificate")
	}
	if off, err := tlsConfig("", "", dir, false); off != nil || err != nil {
		t.Errorf("without flags: %v %v", off, err)
	}
	if _, err := tlsConfig(filepath.Join(dir, "missing.crt"), filepath.Join(dir, "missing.key"), dir, false); err == nil {
		t.Error("missing files accepted")
	}
}
