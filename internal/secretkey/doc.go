// Package secretkey encrypts the values of secrets (CREATE SECRET) with a
// key kept in the data directory, beside the store but not in it: the
// store, its write-ahead log and its backups hold only ciphertext, so a
// secret's plaintext never reaches the disk through Pebble.
//
// The key is 32 random bytes in <data-dir>/secret.key (mode 0600, created
// at first start, atomically and synced). Values are sealed with
// AES-256-GCM under a fresh random nonce: a version byte, the 12-byte
// nonce, then the ciphertext with its tag. Losing the key loses the
// secrets (their objects remain and report that they cannot be
// decrypted); keep it with the data directory's backups, or recreate the
// secrets with ALTER SECRET.
package secretkey
