package egress

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// Policy is an allow-list of destinations. The nil Policy allows all.
type Policy struct {
	hosts map[string]bool
	nets  []netip.Prefix
	// lookup resolves a host name (net.DefaultResolver's, or a test's).
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dialer net.Dialer
}

// Parse reads a comma-separated list of host names, IP addresses and
// CIDR blocks ("kafka.internal,10.1.0.0/16,192.0.2.7"). An empty list
// gives the nil Policy, which allows every destination.
func Parse(list string) (*Policy, error) {
	p := &Policy{hosts: map[string]bool{}, lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			continue
		case strings.Contains(item, "/"):
			pfx, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("--allow-egress %q: %w", item, err)
			}
			p.nets = append(p.nets, pfx.Masked())
		default:
			if a, err := netip.ParseAddr(item); err == nil {
				p.nets = append(p.nets, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
				continue
			}
			if strings.ContainsAny(item, " :") {
				return nil, fmt.Errorf("--allow-egress %q: not a host name, address or CIDR block", item)
			}
			p.hosts[strings.ToLower(strings.TrimSuffix(item, "."))] = true
		}
	}
	if len(p.hosts) == 0 && len(p.nets) == 0 {
		return nil, nil
	}
	return p, nil
}

// Check reports whether the server may connect to address (host:port):
// its host is listed by name, or every address it resolves to lies in a
// listed block. The error is 42501 naming the destination, never what
// is (or is not) there.
func (p *Policy) Check(ctx context.Context, address string) error {
	_, err := p.resolve(ctx, address)
	return err
}

// Dial connects to address if the policy allows it, to the very address
// it checked. It has net.Dialer.DialContext's signature.
func (p *Policy) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if p == nil {
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
	target, err := p.resolve(ctx, address)
	if err != nil {
		return nil, err
	}
	return p.dialer.DialContext(ctx, network, target)
}

// resolve checks address and returns what to dial: address itself for
// a host listed by name or the nil Policy, otherwise the first of its
// resolved addresses, all of which must be allowed.
func (p *Policy) resolve(ctx context.Context, address string) (string, error) {
	if p == nil {
		return address, nil
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid address %q", address).WithHint("Give it as host:port.")
	}
	if p.hosts[strings.ToLower(strings.TrimSuffix(host, "."))] {
		return address, nil
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = p.lookup(ctx, host); err != nil || len(addrs) == 0 {
		return "", refused(address)
	}
	for _, a := range addrs {
		if !p.allowed(a.Unmap()) {
			return "", refused(address)
		}
	}
	return net.JoinHostPort(addrs[0].Unmap().String(), port), nil
}

func (p *Policy) allowed(a netip.Addr) bool {
	for _, n := range p.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

func refused(address string) error {
	return pgerr.New(pgerr.InsufficientPrivilege, "connecting to %s is not allowed", address).
		WithHint("The server connects only to the hosts and networks its --allow-egress option lists.")
}
