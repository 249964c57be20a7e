// Package egress decides which hosts the server may connect to on a
// user's behalf. A connection (CREATE CONNECTION) makes the server dial
// the host and port it names, from inside the network the server sits
// in; without a limit, whoever may create connections can probe hosts
// and ports that only the server can reach. --allow-egress lists the
// destinations allowed, as host names and CIDR blocks; a Policy built
// from the list checks a destination when a connection is created
// (Check) and again at every dial (Dial), after resolving the name, so
// that a name that later resolves elsewhere (DNS rebinding), or a broker
// address a cluster's metadata hands out, cannot lead past it. The
// address checked is the address dialed.
//
// An empty list allows every destination; creating connections is still
// a privilege (the predefined role pg_create_connection).
package egress
