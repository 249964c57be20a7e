package secretkey

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/streamdb/streamdb/internal/privatefile"
)

// Name is the key file in the data directory.
const Name = "secret.key"

const (
	keySize = 32
	version = 1
)

// Key seals and opens secrets' values (catalog.Keyring).
type Key struct {
	aead cipher.AEAD
}

// Open reads dir's key file, creating it with a new random key when
// there is none. dir must exist.
func Open(dir string) (*Key, error) {
	path := filepath.Join(dir, Name)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		b = make([]byte, keySize)
		rand.Read(b)
		if err = privatefile.Write(path, b); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	if len(b) != keySize {
		return nil, fmt.Errorf("%s: a key is %d bytes, the file has %d", path, keySize, len(b))
	}
	return New(b)
}

// New returns a Key over 32 bytes of key material.
func New(key []byte) (*Key, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Key{aead: aead}, nil
}

// Seal encrypts plaintext under a fresh nonce.
func (k *Key) Seal(plaintext []byte) ([]byte, error) {
	out := make([]byte, 1+k.aead.NonceSize(), 1+k.aead.NonceSize()+len(plaintext)+k.aead.Overhead())
	out[0] = version
	rand.Read(out[1:])
	return k.aead.Seal(out, out[1:], plaintext, nil), nil
}

// errSealed is every failure to open: it says nothing of the value.
var errSealed = errors.New("secret cannot be decrypted")

// Open decrypts what Seal returned, failing when it was sealed with
// another key or changed since.
func (k *Key) Open(sealed []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < 1+n || sealed[0] != version {
		return nil, errSealed
	}
	out, err := k.aead.Open(nil, sealed[1:1+n], sealed[1+n:], nil)
	if err != nil {
		return nil, errSealed
	}
	return out, nil
}
