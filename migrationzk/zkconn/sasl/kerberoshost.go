package sasl

import (
	"context"
	"net"
	"strings"
)

// resolver is the part of net.Resolver that names the server's host.
type resolver interface {
	LookupAddr(ctx context.Context, addr string) ([]string, error)
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// systemResolver is the system's resolver (/etc/hosts, then DNS).
type systemResolver struct{}

func (systemResolver) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	return net.DefaultResolver.LookupAddr(ctx, addr)
}

func (systemResolver) LookupHost(ctx context.Context, host string) ([]string, error) {
	return net.DefaultResolver.LookupHost(ctx, host)
}

// serverHostName is the host part of the server principal for a server
// dialed as host, as ZooKeeper 3.8's client names it (Kafka 3.9 ships
// that client). The name starts as host; an IP address is replaced by the
// name it maps back to, when that name maps forward to the address again.
// With canonicalize, the address the host resolves to is mapped back the
// same way, and a name found replaces the one held.
func serverHostName(ctx context.Context, res resolver, host string, canonicalize bool) string {
	ip := net.ParseIP(host)
	name := host
	if ip != nil {
		name = confirmedName(ctx, res, ip)
	}
	if !canonicalize {
		return name
	}
	if ip == nil {
		addrs, err := res.LookupHost(ctx, host)
		if err != nil || len(addrs) == 0 {
			return name
		}
		if ip = net.ParseIP(addrs[0]); ip == nil {
			return name
		}
	}
	if canonical := confirmedName(ctx, res, ip); canonical != ip.String() {
		return canonical
	}
	return name
}

// confirmedName is the first name ip maps back to when that name maps
// forward to ip, else ip in text form.
func confirmedName(ctx context.Context, res resolver, ip net.IP) string {
	names, err := res.LookupAddr(ctx, ip.String())
	if err != nil || len(names) == 0 {
		return ip.String()
	}
	name := strings.TrimSuffix(names[0], ".")
	addrs, err := res.LookupHost(ctx, name)
	if err != nil {
		return ip.String()
	}
	for _, a := range addrs {
		if back := net.ParseIP(a); back != nil && back.Equal(ip) {
			return name
		}
	}
	return ip.String()
}
