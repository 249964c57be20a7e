package kafkaconn

import (
	"errors"
	"strings"
)

// Errors that echo what a peer sent. franz-go reads a response's first
// four bytes as its size, and when they are not a plausible size it
// prints them, as a number, in its error: a connection pointed at
// another service (SSH, HTTP, a database) would then show that service's
// first bytes in SHOW SOURCES and in the log, and let anyone allowed to
// create a connection read banners off the server's network. Redact
// replaces such an error with one that says only that the peer is not a
// Kafka broker.

// peerSizeErrors start the messages that print the bytes.
var peerSizeErrors = []string{"invalid large response size", "invalid negative response size"}

// notKafka is the message that replaces them.
const notKafka = "the peer's response is not a Kafka response; is the address a Kafka broker's?"

// Redact returns err, or an error of the same context (the text before
// the failure) without the peer's bytes when err prints them.
func Redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, p := range peerSizeErrors {
		if i := strings.Index(msg, p); i >= 0 {
			return errors.New(msg[:i] + notKafka)
		}
	}
	return err
}
