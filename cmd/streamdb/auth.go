package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"

	"github.com/streamdb/streamdb/pgwire"
)

// authFlags are the command-line settings of authentication.
type authFlags struct {
	mode            string // --auth
	insecure        bool
	localNets       string
	plaintextRemote bool
	cleartext       bool // --tls-cleartext-password
}

// authModes maps --auth to the methods for local and remote clients.
var authModes = map[string][2]pgwire.AuthMethod{
	"local-trust": {pgwire.AuthTrust, pgwire.AuthSCRAM},
	"scram":       {pgwire.AuthSCRAM, pgwire.AuthSCRAM},
	"trust":       {pgwire.AuthTrust, pgwire.AuthTrust},
}

// authConfig turns the flags into pgwire's policy, and refuses to start a
// server that trusts everyone on an address beyond the host unless
// --insecure accepts the risk. It checks the listen address before
// anything is created or bound.
func authConfig(ctx context.Context, f authFlags, listen string, withTLS bool, log *slog.Logger) (pgwire.AuthConfig, error) {
	var cfg pgwire.AuthConfig
	methods, ok := authModes[f.mode]
	if !ok {
		return cfg, fmt.Errorf("--auth %q: want local-trust, scram or trust", f.mode)
	}
	cfg.Local, cfg.Remote = methods[0], methods[1]
	if f.cleartext {
		for _, m := range []*pgwire.AuthMethod{&cfg.Local, &cfg.Remote} {
			if *m == pgwire.AuthSCRAM {
				*m = pgwire.AuthPassword
			}
		}
	}
	for _, s := range strings.Split(f.localNets, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return cfg, fmt.Errorf("--local-nets: %w", err)
		}
		cfg.LocalNets = append(cfg.LocalNets, p.Masked())
	}
	if cfg.LocalNets == nil {
		cfg.LocalNets = []netip.Prefix{} // nothing counts as local
	}
	cfg.RemotePlaintext = f.plaintextRemote

	local, err := pgwire.ListenIsLocal(ctx, listen, cfg.LocalNets)
	if err != nil {
		return cfg, fmt.Errorf("--listen %s: %w", listen, err)
	}
	switch {
	case local:
	case cfg.Remote == pgwire.AuthTrust && !f.insecure:
		return cfg, fmt.Errorf("refusing to listen on %s with --auth trust: anyone who can reach that address "+
			"could connect as any role without a password and read or change every table. Use --auth local-trust "+
			"(the default: passwords for clients beyond this host) or --auth scram, listen on a loopback address "+
			"such as 127.0.0.1, or add --insecure if this network is trusted", listen)
	case cfg.Remote == pgwire.AuthTrust:
		log.Warn("--insecure: every client that can reach the listen address connects as any role without a password", "listen", listen)
	case !withTLS:
		log.Warn("listening beyond this host without TLS: passwords are safe (SCRAM) but queries and results cross the network unencrypted; see --tls-cert", "listen", listen)
	}
	return cfg, nil
}
