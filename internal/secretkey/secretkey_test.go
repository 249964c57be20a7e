package secretkey

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestKeyFile creates the key file once, 0600, and reads the same key
// back: a value sealed before a restart opens after it.
func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	k1, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, Name))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", st.Mode().Perm())
	}
	sealed, err := k1.Seal([]byte("hunter2"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("hunter2")) {
		t.Fatal("the sealed value holds the plaintext")
	}
	k2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := k2.Open(sealed)
	if err != nil || string(got) != "hunter2" {
		t.Fatalf("Open after reopening = %q, %v", got, err)
	}
}

// TestOpenRefuses checks that a value sealed with another key, changed,
// or cut short does not open, and that two seals of one value differ.
func TestOpenRefuses(t *testing.T) {
	k, _ := New(bytes.Repeat([]byte{1}, keySize))
	other, _ := New(bytes.Repeat([]byte{2}, keySize))
	sealed, _ := k.Seal([]byte("value"))
	again, _ := k.Seal([]byte("value"))
	if bytes.Equal(sealed, again) {
		t.Error("two seals of one value are equal: the nonce is not fresh")
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	for name, b := range map[string][]byte{"other key": sealed, "changed": flipped, "short": sealed[:5], "empty": nil} {
		key := k
		if name == "other key" {
			key = other
		}
		if _, err := key.Open(b); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}
