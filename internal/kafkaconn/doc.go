// Package kafkaconn is how streamdb connects to Kafka: the connection
// settings of CREATE CONNECTION … TO KAFKA (brokers, SASL, TLS, security
// protocol), their validation, and the franz-go options every client
// built from them shares, whether it reads (sources/kafka) or writes
// (sinks/kafka).
//
// It also holds the two franz-go adapters both sides need: a logger that
// routes franz-go's logs to slog, and a hook that remembers the last
// broker failure, because franz-go retries dials and reads until a
// request's context ends and then reports only the context's error. A
// stalled source or sink shows the remembered failure ("connection
// refused", a broker hanging up on SASL) as its reason instead.
package kafkaconn
