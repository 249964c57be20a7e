package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/streamdb/streamdb/internal/selfsigned"
)

// tlsConfig loads the server's certificate and key. With selfSigned, a
// missing pair is first created: a self-signed certificate for localhost
// and 127.0.0.1, written next to the data (the default paths are
// server.crt and server.key in the data directory), so that clients that
// insist on TLS without verifying the server (lib/pq's default
// sslmode=require) connect out of the box. Without any of the flags TLS is
// off and SSLRequest is answered 'N'.
func tlsConfig(certFile, keyFile, dataDir string, selfSigned bool) (*tls.Config, error) {
	if certFile == "" && keyFile == "" && !selfSigned {
		return nil, nil
	}
	if certFile == "" {
		certFile = filepath.Join(dataDir, "server.crt")
	}
	if keyFile == "" {
		keyFile = filepath.Join(dataDir, "server.key")
	}
	if selfSigned {
		if _, err := os.Stat(certFile); errors.Is(err, os.ErrNotExist) {
			if err := writeSelfSigned(certFile, keyFile); err != nil {
				return nil, fmt.Errorf("creating a self-signed certificate: %w", err)
			}
		}
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// writeSelfSigned creates a ten-year self-signed certificate for this
// host and its key, readable by the owner only like everything in the data
// directory.
func writeSelfSigned(certFile, keyFile string) error {
	host, _ := os.Hostname()
	c, err := selfsigned.New("streamdb", 10*365*24*time.Hour, host)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(certFile), 0o700); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(keyFile), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(keyFile, c.KeyPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(certFile, c.CertPEM, 0o600)
}
