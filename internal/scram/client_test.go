package scram

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// client is the client's side of an exchange, for the tests: it computes
// proofs the way libpq does, so that the server is tested against the
// RFC's arithmetic rather than against itself.
type client struct {
	password string
	header   string // GS2 header: "n,,", "y,," or "p=tls-server-end-point,,"
	cbind    []byte // channel-binding data sent with a 'p' header
	nonce    string

	firstBare, serverFirst string
	salted                 []byte
}

func (c *client) first() []byte {
	c.firstBare = "n=,r=" + c.nonce
	return []byte(c.header + c.firstBare)
}

// final answers the server-first message; mutate may change the message
// without its proof before the proof is computed over it.
func (c *client) final(serverFirst []byte, mutate func(string) string) []byte {
	c.serverFirst = string(serverFirst)
	var nonce, salt string
	var iter int
	for _, kv := range strings.Split(c.serverFirst, ",") {
		switch kv[0] {
		case 'r':
			nonce = kv[2:]
		case 's':
			salt = kv[2:]
		case 'i':
			for _, d := range kv[2:] {
				iter = iter*10 + int(d-'0')
			}
		}
	}
	s, _ := base64.StdEncoding.DecodeString(salt)
	c.salted = saltedPassword(c.password, s, iter)
	cb := base64.StdEncoding.EncodeToString(append([]byte(c.header), c.cbind...))
	withoutProof := "c=" + cb + ",r=" + nonce
	if mutate != nil {
		withoutProof = mutate(withoutProof)
	}
	clientKey := hmacSum(c.salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	sig := hmacSum(stored[:], c.firstBare+","+c.serverFirst+","+withoutProof)
	proof := make([]byte, len(clientKey))
	for i := range proof {
		proof[i] = clientKey[i] ^ sig[i]
	}
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof))
}

// serverSignature is the signature the server must answer with.
func (c *client) serverSignature(clientFinal []byte) string {
	withoutProof := string(clientFinal[:strings.LastIndex(string(clientFinal), ",p=")])
	m := hmac.New(sha256.New, hmacSum(c.salted, "Server Key"))
	m.Write([]byte(c.firstBare + "," + c.serverFirst + "," + withoutProof))
	return "v=" + base64.StdEncoding.EncodeToString(m.Sum(nil))
}
