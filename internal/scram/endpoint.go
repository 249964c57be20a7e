package scram

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"hash"
)

// EndPoint returns the tls-server-end-point channel-binding data of the
// server's certificate (RFC 5929): the certificate hashed with the hash of
// its signature algorithm, SHA-256 in place of MD5 and SHA-1. It returns
// nil for a signature without such a hash (Ed25519), for which no binding
// is defined; the server then offers SCRAM-SHA-256 only.
func EndPoint(cert *x509.Certificate) []byte {
	var h hash.Hash
	switch cert.SignatureAlgorithm {
	case x509.MD5WithRSA, x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1,
		x509.SHA256WithRSA, x509.SHA256WithRSAPSS, x509.ECDSAWithSHA256, x509.DSAWithSHA256:
		h = sha256.New()
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = sha512.New384()
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = sha512.New()
	default:
		return nil
	}
	h.Write(cert.Raw)
	return h.Sum(nil)
}
