package connectstring

import (
	"reflect"
	"strings"
	"testing"
)

// TestParse reads the connect strings ZooKeeper's client reads, and
// refuses at once those that can never connect.
// Fault: none (pure).
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		servers []string
		chroot  string
	}{
		{"127.0.0.1:2181", []string{"127.0.0.1:2181"}, ""},
		{"127.0.0.1/kafka", []string{"127.0.0.1:2181"}, "/kafka"},
		{"zk1:2181,zk2,zk3:2182/kafka/prod", []string{"zk1:2181", "zk2:2181", "zk3:2182"}, "/kafka/prod"},
		{" zk1:2181 , zk2:2181 ", []string{"zk1:2181", "zk2:2181"}, ""},
		{"zk1:", []string{"zk1:2181"}, ""},
		{"[::1]:37429/kafka", []string{"[::1]:37429"}, "/kafka"},
		{"[::1]", []string{"[::1]:2181"}, ""},
		{"[fe80::1]:2181,10.0.0.1:2181/", []string{"[fe80::1]:2181", "10.0.0.1:2181"}, "/"},
	} {
		got, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got.Servers, tc.servers) || got.Chroot != tc.chroot {
			t.Errorf("Parse(%q) = %+v, want %v and chroot %q", tc.in, got, tc.servers, tc.chroot)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "no server"},
		{"/kafka", "no server"},
		{"zk1:2181,,zk2:2181", "an empty server between commas"},
		{"zk1:2181,", "an empty server between commas"},
		{"::1:37429/kafka", `server "::1:37429": an IPv6 address needs brackets: [::1]:37429`},
		{"fe80::1", "an IPv6 address needs brackets: [fe80::1]:2181"},
		{"host:1:2", `server "host:1:2": too many colons`},
		{":2181", `server ":2181" names no host`},
		{"zk1:http", `the port "http" is not a number from 1 to 65535`},
		{"zk1:0", `the port "0"`},
		{"zk1:65536", `the port "65536"`},
		{"zk1:+80", `the port "+80"`},
		{"[::1", "no ] closes the IPv6 address"},
		{"[zk1]:2181", `"zk1" in brackets is no IPv6 address`},
		{"[::1]2181", "want [address]:port"},
		{"zk 1:2181", `the host "zk 1" is no host name or address`},
	} {
		_, err := Parse(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}
