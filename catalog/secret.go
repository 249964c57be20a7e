package catalog

import (
	"github.com/streamdb/streamdb/pgerr"
)

// Keyring encrypts and decrypts secrets' values with a key kept outside
// the store, so that a secret's plaintext is never written to it (nor
// to its write-ahead log). internal/secretkey implements it with a key
// file in the data directory.
type Keyring interface {
	// Seal encrypts a value.
	Seal(plaintext []byte) ([]byte, error)
	// Open decrypts what Seal returned.
	Open(sealed []byte) ([]byte, error)
}

// SetKeyring sets the keyring that SecretValue opens secrets with; the
// engine sets it on the catalog it loads, and every version after
// inherits it.
func (c *Catalog) SetKeyring(k Keyring) { c.keyring = k }

// Seal encrypts a secret's value for Object.SealedSecret.
func (c *Catalog) Seal(plaintext string) ([]byte, error) {
	if c.keyring == nil {
		return nil, pgerr.New(pgerr.InternalError, "secrets cannot be stored: no key")
	}
	return c.keyring.Seal([]byte(plaintext))
}

// SecretValue returns a secret's plaintext. It is how a source or sink
// obtains the value of a secret its connection names, when it is created
// and again when it is rebuilt on start: the value stays sealed in the
// catalog and is opened only then, for the one object that needs it.
func (c *Catalog) SecretValue(o *Object) (string, error) {
	if o.Kind != KindSecret {
		return "", pgerr.New(pgerr.WrongObjectType, "%q is not a secret", o.Name)
	}
	if o.SealedSecret == nil {
		return o.Secret, nil
	}
	if c.keyring == nil {
		return "", pgerr.New(pgerr.InternalError, "secret %q cannot be read: no key", o.Name)
	}
	b, err := c.keyring.Open(o.SealedSecret)
	if err != nil {
		// The error says nothing of the value.
		return "", pgerr.New(pgerr.DataCorrupted, "secret %q cannot be decrypted with the data directory's key", o.Name).
			WithHint("The key file secret.key in the data directory must be the one the secret was created with.")
	}
	return string(b), nil
}
