package scram

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

const (
	// DefaultIterations is PostgreSQL's scram_iterations default.
	DefaultIterations = 4096
	// saltLen is PostgreSQL's SCRAM_DEFAULT_SALT_LEN.
	saltLen = 16
	// keyLen is the length of SHA-256 keys and proofs.
	keyLen = sha256.Size
	// prefix starts every verifier.
	prefix = "SCRAM-SHA-256$"
)

// Verifier is what is stored of a password: enough to check a client's
// proof and to sign the server's answer, not enough to log in.
type Verifier struct {
	Iterations int
	Salt       []byte
	StoredKey  [keyLen]byte
	ServerKey  [keyLen]byte
}

// New makes the verifier of password with a fresh random salt and
// DefaultIterations, as PostgreSQL does for CREATE ROLE … PASSWORD.
func New(password string) Verifier {
	salt := make([]byte, saltLen)
	rand.Read(salt)
	return FromPassword(password, salt, DefaultIterations)
}

// FromPassword makes the verifier of password with the given salt and
// iteration count.
func FromPassword(password string, salt []byte, iterations int) Verifier {
	salted := saltedPassword(password, salt, iterations)
	v := Verifier{Iterations: iterations, Salt: salt}
	v.StoredKey = sha256.Sum256(hmacSum(salted, "Client Key"))
	copy(v.ServerKey[:], hmacSum(salted, "Server Key"))
	return v
}

// Mock is the verifier an exchange uses for a role that does not exist or
// has no usable password, as PostgreSQL's mock_scram_secret: its salt is
// derived from user and nonce, a secret that stays the same across
// restarts, so that a client sees the same salt for the same name every
// time. Its keys match no password.
func Mock(user string, nonce []byte) Verifier {
	h := sha256.New()
	h.Write([]byte(user))
	h.Write(nonce)
	return Verifier{Iterations: DefaultIterations, Salt: h.Sum(nil)[:saltLen]}
}

// Parse reads a verifier in PostgreSQL's format,
// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>.
func Parse(s string) (Verifier, error) {
	var v Verifier
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return v, errNotVerifier
	}
	params, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return v, errNotVerifier
	}
	iter, salt, ok := strings.Cut(params, ":")
	if !ok {
		return v, errNotVerifier
	}
	stored, server, ok := strings.Cut(keys, ":")
	if !ok {
		return v, errNotVerifier
	}
	n, err := strconv.Atoi(iter)
	if err != nil || n < 1 {
		return v, errNotVerifier
	}
	v.Iterations = n
	if v.Salt, err = base64.StdEncoding.DecodeString(salt); err != nil || len(v.Salt) == 0 {
		return v, errNotVerifier
	}
	if !decodeKey(v.StoredKey[:], stored) || !decodeKey(v.ServerKey[:], server) {
		return v, errNotVerifier
	}
	return v, nil
}

var errNotVerifier = errors.New("not a SCRAM-SHA-256 verifier")

// decodeKey decodes a base64 key of exactly keyLen bytes into dst.
func decodeKey(dst []byte, s string) bool {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != keyLen {
		return false
	}
	copy(dst, b)
	return true
}

// String renders v in PostgreSQL's format.
func (v Verifier) String() string {
	b64 := base64.StdEncoding.EncodeToString
	return prefix + strconv.Itoa(v.Iterations) + ":" + b64(v.Salt) + "$" + b64(v.StoredKey[:]) + ":" + b64(v.ServerKey[:])
}

// Check reports whether password is the one v was made from, comparing in
// constant time. It runs PBKDF2 (some milliseconds at 4096 iterations): it
// is for a password received in cleartext, not for the SCRAM exchange.
func (v Verifier) Check(password string) bool {
	w := FromPassword(password, v.Salt, v.Iterations)
	okStored := subtle.ConstantTimeCompare(v.StoredKey[:], w.StoredKey[:])
	okServer := subtle.ConstantTimeCompare(v.ServerKey[:], w.ServerKey[:])
	return okStored&okServer == 1
}

// saltedPassword is PBKDF2-HMAC-SHA-256 of the normalized password.
func saltedPassword(password string, salt []byte, iterations int) []byte {
	// Key fails only for an impossible key length.
	k, _ := pbkdf2.Key(sha256.New, Normalize(password), salt, iterations, keyLen)
	return k
}

// hmacSum is HMAC-SHA-256 of msg under key.
func hmacSum(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}
