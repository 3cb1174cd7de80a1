package zktest

import (
	"bufio"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Fault: none. Every connection to a member's quorum or election port
// comes from a proxy of the harness: no member reaches another directly,
// not even when it connects back to a member of lower ID after an election
// connection, where ZooKeeper dials the address the other announced.
func TestMembersReachEachOtherOnlyThroughProxies(t *testing.T) {
	e := StartEnsemble(t, 3, WithTickTime(partitionTick))
	ctx := partitionContext(t)
	leader, err := e.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A new election makes every member connect to every other.
	if err := e.Isolate(leader.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.WaitLeader(ctx, others(e, leader.ID)...); err != nil {
		t.Fatal(err)
	}
	e.Heal()
	if _, err := e.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	ports := map[int]bool{}
	for _, p := range e.net.proxies {
		_, port, _ := net.SplitHostPort(p.target)
		n, _ := strconv.Atoi(port)
		ports[n] = true
	}
	mine := ownSockets(t)
	conns := 0
	for _, c := range establishedTo(t, ports) {
		conns++
		if !mine[c.inode] {
			t.Errorf("a connection from port %d to member port %d does not come from a proxy", c.localPort, c.remotePort)
		}
	}
	if conns < 3 {
		t.Fatalf("%d connections to the members' quorum and election ports, want at least 3", conns)
	}
}

type tcpEntry struct {
	localPort, remotePort int
	inode                 string
}

// establishedTo lists the established loopback TCP connections of every
// process whose remote port is in ports.
func establishedTo(t *testing.T, ports map[int]bool) []tcpEntry {
	t.Helper()
	var found []tcpEntry
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			t.Skipf("no %s: %v", table, err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "01" {
				continue
			}
			local, remote := hexPort(fields[1]), hexPort(fields[2])
			if ports[remote] {
				found = append(found, tcpEntry{localPort: local, remotePort: remote, inode: fields[9]})
			}
		}
		f.Close()
	}
	return found
}

func hexPort(addr string) int {
	i := strings.LastIndexByte(addr, ':')
	n, _ := strconv.ParseInt(addr[i+1:], 16, 32)
	return int(n)
}

// ownSockets returns the inodes of this process's sockets.
func ownSockets(t *testing.T) map[string]bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink("/proc/self/fd/" + fd.Name())
		if inode, ok := strings.CutPrefix(target, "socket:["); ok && err == nil {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	return inodes
}
