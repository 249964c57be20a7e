package scram

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strconv"

	"github.com/streamdb/streamdb/pgerr"
)

// The SASL mechanisms, as named in AuthenticationSASL.
const (
	Mechanism     = "SCRAM-SHA-256"
	MechanismPlus = "SCRAM-SHA-256-PLUS"
)

// cbindHeader is the GS2 header of a client that binds to the server's
// certificate; it opens the channel-binding input of the final message.
const cbindHeader = "p=tls-server-end-point,,"

// Mechanisms returns the mechanisms to offer in AuthenticationSASL:
// SCRAM-SHA-256-PLUS first when the connection can bind (cbind is the
// connection's tls-server-end-point data), as PostgreSQL lists them.
func Mechanisms(cbind []byte) []string {
	if cbind != nil {
		return []string{MechanismPlus, Mechanism}
	}
	return []string{Mechanism}
}

// Server is the server's side of one SCRAM exchange: First, then Final.
type Server struct {
	v      Verifier
	doomed bool
	plus   bool
	cbind  []byte
	flag   byte // the client's channel-binding flag: 'n', 'y' or 'p'

	clientNonce, serverNonce string
	clientFirstBare          string
	serverFirst              string
}

// NewServer starts an exchange for the mechanism the client selected from
// Mechanisms(cbind). v is the role's verifier. A doomed exchange fails
// whatever the client sends, with v a Mock verifier so that it looks like
// any other: the role does not exist or has no usable password.
func NewServer(mechanism string, v Verifier, doomed bool, cbind []byte) (*Server, error) {
	s := &Server{v: v, doomed: doomed, cbind: cbind}
	switch {
	case mechanism == Mechanism:
	case mechanism == MechanismPlus && cbind != nil:
		s.plus = true
	default:
		return nil, pgerr.New(pgerr.ProtocolViolation, "client selected an invalid SASL authentication mechanism")
	}
	var raw [18]byte // PostgreSQL's SCRAM_RAW_NONCE_LEN
	rand.Read(raw[:])
	s.serverNonce = base64.StdEncoding.EncodeToString(raw[:])
	return s, nil
}

// First reads the client-first message,
//
//	gs2-cbind-flag "," [authzid] "," [reserved-mext ","] "n=" user "," "r=" nonce ["," extensions]
//
// and returns the server-first message, "r=" nonce "," "s=" salt "," "i="
// iterations. The user name is ignored: the role is the StartupMessage's.
func (s *Server) First(msg []byte) ([]byte, error) {
	if err := checkLength(msg); err != nil {
		return nil, err
	}
	a := attrs{string(msg)}
	s.flag = a.peek()
	switch s.flag {
	case 'n', 'y':
		if s.plus {
			return nil, malformed("The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data.")
		}
		if s.flag == 'y' && s.cbind != nil {
			return nil, &pgerr.Error{
				Code:    pgerr.InvalidAuthorization,
				Message: "SCRAM channel binding negotiation error",
				Detail:  "The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding.",
			}
		}
		a.s = a.s[1:]
		if c := a.peek(); c != ',' {
			return nil, malformed("Comma expected, but found character \"%s\".", sanitize(c))
		}
		a.s = a.s[1:]
	case 'p':
		if !s.plus {
			return nil, malformed("The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.")
		}
		typ, err := a.value('p')
		if err != nil {
			return nil, err
		}
		if typ != "tls-server-end-point" {
			return nil, pgerr.New(pgerr.ProtocolViolation, "unsupported SCRAM channel-binding type \"%s\"", sanitizeString(typ))
		}
	default:
		return nil, malformed("Unexpected channel-binding flag \"%s\".", sanitize(s.flag))
	}
	switch c := a.peek(); c {
	case 'a':
		return nil, pgerr.New(pgerr.FeatureNotSupported, "client uses authorization identity, but it is not supported")
	case ',':
		a.s = a.s[1:]
	default:
		return nil, malformed("Unexpected attribute \"%s\" in client-first-message.", sanitize(c))
	}
	s.clientFirstBare = a.s
	if a.peek() == 'm' {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "client requires an unsupported SCRAM extension")
	}
	if _, err := a.value('n'); err != nil {
		return nil, err
	}
	nonce, err := a.value('r')
	if err != nil {
		return nil, err
	}
	if !printable(nonce) {
		return nil, pgerr.New(pgerr.ProtocolViolation, "non-printable characters in SCRAM nonce")
	}
	s.clientNonce = nonce
	for a.s != "" { // extensions, none of which is supported
		if _, _, err := a.any(); err != nil {
			return nil, err
		}
	}
	s.serverFirst = "r=" + s.clientNonce + s.serverNonce +
		",s=" + base64.StdEncoding.EncodeToString(s.v.Salt) +
		",i=" + strconv.Itoa(s.v.Iterations)
	return []byte(s.serverFirst), nil
}

// Final reads the client-final message,
//
//	"c=" channel-binding "," "r=" nonce ["," extensions] "," "p=" proof
//
// and reports whether the client proved that it knows the password; then
// final is the server-final message, "v=" server signature. A wrong proof
// and a doomed exchange are both just !ok, which the caller reports as a
// failed password; a malformed message, or one that does not carry the
// exchange's nonce, is an error.
func (s *Server) Final(msg []byte) (final []byte, ok bool, err error) {
	if err := checkLength(msg); err != nil {
		return nil, false, err
	}
	a := attrs{string(msg)}
	cb, err := a.value('c')
	if err != nil {
		return nil, false, err
	}
	if s.plus {
		want := base64.StdEncoding.EncodeToString(append([]byte(cbindHeader), s.cbind...))
		if subtle.ConstantTimeCompare([]byte(cb), []byte(want)) != 1 {
			return nil, false, pgerr.New(pgerr.InvalidAuthorization, "SCRAM channel binding check failed")
		}
	} else if !(cb == "biws" && s.flag == 'n') && !(cb == "eSws" && s.flag == 'y') {
		// "n,," and "y,," in base64: the header repeated as sent.
		return nil, false, pgerr.New(pgerr.ProtocolViolation, "unexpected SCRAM channel-binding attribute in client-final-message")
	}
	nonce, err := a.value('r')
	if err != nil {
		return nil, false, err
	}
	var proof string
	withoutProof := ""
	for {
		start := len(msg) - len(a.s)
		attr, v, err := a.any()
		if err != nil {
			return nil, false, err
		}
		if attr == 'p' {
			proof, withoutProof = v, string(msg[:start-1])
			break
		}
	}
	clientProof, err := base64.StdEncoding.DecodeString(proof)
	if err != nil || len(clientProof) != keyLen {
		return nil, false, malformed("Malformed proof in client-final-message.")
	}
	if a.s != "" {
		return nil, false, malformed("Garbage found at the end of client-final-message.")
	}

	if nonce != s.clientNonce+s.serverNonce {
		return nil, false, &pgerr.Error{Code: pgerr.ProtocolViolation, Message: "invalid SCRAM response", Detail: "Nonce does not match."}
	}

	authMessage := s.clientFirstBare + "," + s.serverFirst + "," + withoutProof
	signature := hmacSum(s.v.StoredKey[:], authMessage)
	for i := range clientProof {
		clientProof[i] ^= signature[i] // now the ClientKey the proof claims
	}
	stored := sha256.Sum256(clientProof)
	proofOK := subtle.ConstantTimeCompare(stored[:], s.v.StoredKey[:]) == 1
	if !proofOK || s.doomed {
		return nil, false, nil
	}
	m := hmac.New(sha256.New, s.v.ServerKey[:])
	m.Write([]byte(authMessage))
	return []byte("v=" + base64.StdEncoding.EncodeToString(m.Sum(nil))), true, nil
}

// checkLength refuses an empty message and one with a zero byte inside,
// as PostgreSQL does before parsing.
func checkLength(msg []byte) error {
	if len(msg) == 0 {
		return malformed("The message is empty.")
	}
	if hasNUL(msg) {
		return malformed("Message length does not match input length.")
	}
	return nil
}

// sanitizeString shows a client's string in an error as PostgreSQL's
// sanitize_str does: at most 30 characters, unprintable ones as '?'.
func sanitizeString(s string) string {
	b := []byte(s[:min(len(s), 30)])
	for i, c := range b {
		if c < 0x21 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}
