package pgwire

import (
	"context"
	"net"
	"net/netip"
)

// Whether a client is local decides its authentication method
// (AuthConfig.Local or Remote) and whether it may connect without TLS. A
// client is local when its address is in AuthConfig.LocalNets, by default
// the loopback networks: a connection from there was made on this host.
// The same sets decide whether a listen address exposes the server beyond
// the host (ListenIsLocal), which the command checks before it starts a
// server that trusts everyone.

// LoopbackNets are 127.0.0.0/8 and ::1, the default AuthConfig.LocalNets.
func LoopbackNets() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

// isLocal reports whether a client at addr is local. A Unix socket is;
// an address of any other kind is not.
func (a *AuthConfig) isLocal(addr net.Addr) bool {
	switch addr := addr.(type) {
	case *net.TCPAddr:
		ip, ok := netip.AddrFromSlice(addr.IP)
		return ok && inNets(ip, a.localNets())
	case *net.UnixAddr:
		return true
	}
	return false
}

func (a *AuthConfig) localNets() []netip.Prefix {
	if a.LocalNets == nil {
		return LoopbackNets()
	}
	return a.LocalNets
}

func inNets(ip netip.Addr, nets []netip.Prefix) bool {
	ip = ip.Unmap()
	for _, n := range nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// ListenIsLocal reports whether a server listening on listen (host:port)
// can be reached only from local addresses (nets; nil means LoopbackNets).
// An empty host or an unspecified address (0.0.0.0, ::) listens on every
// interface and is not local; a host name is local when every address it
// resolves to is.
func ListenIsLocal(ctx context.Context, listen string, nets []netip.Prefix) (bool, error) {
	if nets == nil {
		nets = LoopbackNets()
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false, err
	}
	if host == "" {
		return false, nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return !ip.IsUnspecified() && inNets(ip, nets), nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return false, err
	}
	for _, ip := range ips {
		if !inNets(ip, nets) {
			return false, nil
		}
	}
	return len(ips) > 0, nil
}
