package zkserver

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// ErrPortTaken reports that a port asked of Reserve is held by another
// Reservation, in this process or another, or bound by a socket.
var ErrPortTaken = errors.New("zkserver: port taken")

// The ports a Reservation draws from: those of [lowestPort, 65535] that
// lie outside the kernel's ephemeral range. Below lowestPort are the
// ports that services are commonly configured on.
const (
	lowestPort  = 10000
	highestPort = 65535
)

// ephemeralRangeFile is where Linux keeps the range from which it numbers
// the sockets bound to port 0 and the local end of outgoing connections.
const ephemeralRangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// The range assumed where ephemeralRangeFile cannot be read: the union of
// Linux's default and IANA's dynamic ports.
const (
	defaultEphemeralLo = 32768
	defaultEphemeralHi = 65535
)

// portRange is the ports from lo to hi, both included.
type portRange struct{ lo, hi int }

func (r portRange) contains(port int) bool { return r.lo <= port && port <= r.hi }

// Reservation is a set of TCP ports on 127.0.0.1 held for the servers of
// this process. While it lasts no other Reservation is given its ports, in
// this process or in any other that shares os.TempDir(): each port is an
// exclusive flock(2) on a lock file there, "zkserver-port-<port>.lock",
// which Release removes. It lasts until Release, or until the process
// ends, however it ends, since the kernel drops the locks of a process
// that exits (a process killed leaves its files, unlocked, for the next
// Reservation of their ports to take and remove). Its ports lie outside
// the kernel's ephemeral range (on Linux, net.ipv4.ip_local_port_range),
// from which the kernel numbers sockets bound to port 0 and the local end
// of outgoing connections, so no such socket takes them either.
//
// Hold a Reservation for as long as the servers on its ports may run,
// stopped ones included: a server that is stopped and restarted finds its
// ports free again, and no server of another process is reached at them
// in between.
type Reservation struct {
	ports []int
	locks []*os.File
}

// ReservePorts reserves n distinct ports that no socket is bound to, from
// outside the kernel's ephemeral range; see Reservation. It fails when
// fewer than n can be had.
func ReservePorts(n int) (*Reservation, error) {
	ephemeral := ephemeralRange()
	candidates := candidatePorts(ephemeral)
	if len(candidates) > 0 {
		// Processes start apart, so that they seldom contend.
		start := rand.IntN(len(candidates))
		candidates = slices.Concat(candidates[start:], candidates[:start])
	}
	r, err := reserveFrom(candidates, n)
	if err != nil {
		return nil, fmt.Errorf("%w outside the ephemeral range %d-%d", err, ephemeral.lo, ephemeral.hi)
	}
	return r, nil
}

// reserveFrom reserves the first n of candidates that are neither
// reserved nor bound, in their order.
func reserveFrom(candidates []int, n int) (*Reservation, error) {
	r := &Reservation{}
	for _, port := range candidates {
		if len(r.ports) == n {
			break
		}
		lock, err := takePort(port)
		if errors.Is(err, ErrPortTaken) {
			continue
		}
		if err != nil {
			return nil, errors.Join(err, r.Release())
		}
		r.ports, r.locks = append(r.ports, port), append(r.locks, lock)
	}
	if len(r.ports) < n {
		return nil, errors.Join(fmt.Errorf("zkserver: only %d of %d ports free among %d", len(r.ports), n, len(candidates)), r.Release())
	}
	return r, nil
}

// Reserve reserves the given ports, as ReservePorts does, or none: it
// fails with ErrPortTaken when one is reserved already or bound. A port
// inside the kernel's ephemeral range can be reserved, but the kernel may
// give it to a socket while its server is stopped.
func Reserve(ports ...int) (*Reservation, error) {
	r := &Reservation{}
	for _, port := range ports {
		lock, err := takePort(port)
		if err != nil {
			return nil, errors.Join(err, r.Release())
		}
		r.ports, r.locks = append(r.ports, port), append(r.locks, lock)
	}
	return r, nil
}

// Ports returns the reserved ports, in the order they were reserved.
func (r *Reservation) Ports() []int { return append([]int(nil), r.ports...) }

// Release gives the ports up and removes their lock files; other
// reservations may then take them. Release them once their servers have
// stopped. Releasing again, or a nil Reservation, does nothing.
func (r *Reservation) Release() error {
	if r == nil {
		return nil
	}
	var errs []error
	for _, f := range r.locks {
		errs = append(errs, unlock(f))
	}
	r.ports, r.locks = nil, nil
	return errors.Join(errs...)
}

// unlock removes the lock file f locks, and closes it, which unlocks it.
func unlock(f *os.File) error {
	// Removed while locked: whoever opened the file before and locks it
	// after finds it gone from its path (see lockFile). Another user's
	// file stays, unlocked, which is as safe.
	err := os.Remove(f.Name())
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		err = nil
	}
	return errors.Join(err, f.Close())
}

// lockPath returns the path of port's lock file.
func lockPath(port int) string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("zkserver-port-%d.lock", port))
}

// takeAttempts bounds the tries at locking a port's lock file that its
// holders remove in between.
const takeAttempts = 10

// takePort locks port's lock file and checks that no socket is bound to
// the port. It returns the locked file, or an error wrapping ErrPortTaken
// when the port is reserved or bound.
func takePort(port int) (*os.File, error) {
	for range takeAttempts {
		f, err := lockFile(lockPath(port))
		if errors.Is(err, errRemoved) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("zkserver: reserve port %d: %w", port, err)
		}
		if err := checkUnbound(port); err != nil {
			return nil, errors.Join(err, unlock(f))
		}
		return f, nil
	}
	return nil, fmt.Errorf("%w: %d is reserved and released by others in turn", ErrPortTaken, port)
}

// errRemoved reports a lock file removed by its holder between its
// opening and its locking.
var errRemoved = errors.New("lock file removed")

// lockFile opens path, creating it if missing, and locks it exclusively.
// It fails with ErrPortTaken when another open file holds the lock, and
// with errRemoved when the file it locked is no longer at path.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o666)
	if errors.Is(err, fs.ErrPermission) {
		// Another user's file, which this one may not lock: theirs.
		return nil, fmt.Errorf("%w: %s belongs to another user", ErrPortTaken, path)
	}
	if err != nil {
		return nil, err
	}
	// Locks of flock(2) belong to the open file, so two reservations in
	// one process exclude each other as those of two processes do.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is locked", ErrPortTaken, path)
		}
		return nil, err
	}
	locked, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	current, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !os.SameFile(locked, current) {
		f.Close()
		return nil, errRemoved
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkUnbound fails with ErrPortTaken when a socket is bound to port on
// 127.0.0.1.
func checkUnbound(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("%w: %d is bound: %v", ErrPortTaken, port, err)
	}
	return l.Close()
}

// ephemeralRange returns the kernel's ephemeral port range, or
// the default range where it cannot be read.
func ephemeralRange() portRange {
	b, err := os.ReadFile(ephemeralRangeFile)
	if err != nil {
		return portRange{defaultEphemeralLo, defaultEphemeralHi}
	}
	r, err := parsePortRange(string(b))
	if err != nil {
		return portRange{defaultEphemeralLo, defaultEphemeralHi}
	}
	return r
}

// parsePortRange parses ip_local_port_range's "lo\thi".
func parsePortRange(s string) (portRange, error) {
	fields := strings.Fields(s)
	if len(fields) != 2 {
		return portRange{}, fmt.Errorf("zkserver: port range %q", s)
	}
	lo, errLo := strconv.Atoi(fields[0])
	hi, errHi := strconv.Atoi(fields[1])
	if err := errors.Join(errLo, errHi); err != nil || lo > hi {
		return portRange{}, fmt.Errorf("zkserver: port range %q: %v", s, err)
	}
	return portRange{lo, hi}, nil
}

// candidatePorts lists the ports a Reservation may hold.
func candidatePorts(ephemeral portRange) []int {
	var ports []int
	for p := lowestPort; p <= highestPort; p++ {
		if !ephemeral.contains(p) {
			ports = append(ports, p)
		}
	}
	return ports
}
