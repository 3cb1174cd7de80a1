// Package connectstring reads a ZooKeeper connect string, Kafka's
// zookeeper.connect: servers separated by commas, then an optional chroot
// from the first slash on, as ZooKeeper's own client (ConnectStringParser)
// reads it. A server without a port gets DefaultPort, as there. Unlike
// there, an IPv6 address needs brackets ([::1]:2181), since without them
// the port cannot be told from the address, and a server that names no
// host, or a port that is not a number from 1 to 65535, is an error at
// once rather than a connection that can never succeed.
package connectstring

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultPort is ZooKeeper's client port, the port of a server that names
// none.
const DefaultPort = 2181

// ConnectString is a connect string, read.
type ConnectString struct {
	// Servers are host:port, each as net.JoinHostPort writes it: an IPv6
	// address in brackets, the port always given.
	Servers []string
	// Chroot is the text from the first slash on, "" when there is none.
	// It is returned as given; "/" alone means no chroot, as in
	// ZooKeeper's client.
	Chroot string
}

// Parse reads s. The error says which server is wrong and why.
func Parse(s string) (ConnectString, error) {
	hosts, chroot, hasChroot := strings.Cut(s, "/")
	var cs ConnectString
	if hasChroot {
		cs.Chroot = "/" + chroot
	}
	if strings.TrimSpace(hosts) == "" {
		return ConnectString{}, errors.New("no server: want host:port[,host:port...][/chroot]")
	}
	for _, h := range strings.Split(hosts, ",") {
		server, err := parseServer(strings.TrimSpace(h))
		if err != nil {
			return ConnectString{}, err
		}
		cs.Servers = append(cs.Servers, server)
	}
	return cs, nil
}

// parseServer reads one server, host[:port] or [ipv6][:port], and returns
// it as host:port.
func parseServer(s string) (string, error) {
	if s == "" {
		return "", errors.New("an empty server between commas: want host:port[,host:port...][/chroot]")
	}
	host, port, err := splitServer(s)
	if err != nil {
		return "", err
	}
	if host == "" {
		return "", fmt.Errorf("server %q names no host", s)
	}
	if strings.ContainsAny(host, " \t[]") {
		return "", fmt.Errorf("server %q: the host %q is no host name or address", s, host)
	}
	n := DefaultPort
	if port != "" {
		if n, err = strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strings.ContainsAny(port, "+-") {
			return "", fmt.Errorf("server %q: the port %q is not a number from 1 to 65535", s, port)
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(n)), nil
}

// splitServer splits a server into its host and its port ("" for none).
func splitServer(s string) (host, port string, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", fmt.Errorf("server %q: no ] closes the IPv6 address", s)
		}
		host, rest := s[1:end], s[end+1:]
		if net.ParseIP(host) == nil || !strings.Contains(host, ":") {
			return "", "", fmt.Errorf("server %q: %q in brackets is no IPv6 address", s, host)
		}
		if rest != "" && !strings.HasPrefix(rest, ":") {
			return "", "", fmt.Errorf("server %q: want [address]:port", s)
		}
		return host, strings.TrimPrefix(rest, ":"), nil
	}
	switch strings.Count(s, ":") {
	case 0:
		return s, "", nil
	case 1:
		host, port, _ := strings.Cut(s, ":")
		return host, port, nil
	}
	if i := strings.LastIndexByte(s, ':'); net.ParseIP(s[:i]) != nil {
		return "", "", fmt.Errorf("server %q: an IPv6 address needs brackets: [%s]:%s", s, s[:i], s[i+1:])
	}
	if net.ParseIP(s) != nil {
		return "", "", fmt.Errorf("server %q: an IPv6 address needs brackets: [%s]:%d", s, s, DefaultPort)
	}
	return "", "", fmt.Errorf("server %q: too many colons: want host:port, or [address]:port for IPv6", s)
}
