package zkserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// childEnv, when set in the environment of this test binary, makes it a
// second process acting on port reservations (see runChild) instead of
// running tests.
const childEnv = "ZKSERVER_TEST_PORTS_CHILD"

// racePorts is how many ports a child in mode race reserves.
const racePorts = 2

func TestMain(m *testing.M) {
	if spec, ok := os.LookupEnv(childEnv); ok {
		os.Exit(runChild(spec))
	}
	os.Exit(m.Run())
}

// runChild acts as another process on the ports of spec, "try:p1,p2",
// "hold:p1,p2" or "race:p1,p2,...". try reserves each port on its own and
// prints "<port> reserved" or "<port> taken". hold reserves them all,
// prints "held", and holds them until its standard input closes. race
// reserves the first racePorts of them it can, in their order, prints
// them on a line, and holds them until its standard input closes.
func runChild(spec string) int {
	mode, list, _ := strings.Cut(spec, ":")
	var ports []int
	for _, s := range strings.Split(list, ",") {
		p, err := strconv.Atoi(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		ports = append(ports, p)
	}
	switch mode {
	case "try":
		for _, p := range ports {
			r, err := Reserve(p)
			switch {
			case errors.Is(err, ErrPortTaken):
				fmt.Println(p, "taken")
			case err != nil:
				fmt.Fprintln(os.Stderr, err)
				return 2
			default:
				fmt.Println(p, "reserved")
				r.Release()
			}
		}
	case "hold":
		r, err := Reserve(ports...)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Println("held")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		r.Release()
	case "race":
		r, err := reserveFrom(ports, racePorts)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Println(strings.Trim(fmt.Sprint(r.Ports()), "[]"))
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		r.Release()
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		return 2
	}
	return 0
}

// child returns the command that runs this test binary as another process
// acting on ports as mode says.
func child(t *testing.T, mode string, ports []int) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	list := make([]string, len(ports))
	for i, p := range ports {
		list[i] = strconv.Itoa(p)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+mode+":"+strings.Join(list, ","))
	cmd.Stderr = os.Stderr
	return cmd
}

// tryInChild has another process reserve each of ports and returns what it
// got, by port: "reserved" or "taken".
func tryInChild(t *testing.T, ports []int) map[int]string {
	t.Helper()
	out, err := child(t, "try", ports).Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	got := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var p int
		var what string
		if _, err := fmt.Sscan(line, &p, &what); err != nil {
			t.Fatalf("child said %q: %v", line, err)
		}
		got[p] = what
	}
	return got
}

// Fault: another process tries to reserve the ports this one holds. It is
// refused every one of them, and given them once they are released.
func TestReservationExcludesOtherProcesses(t *testing.T) {
	r, err := ReservePorts(4)
	if err != nil {
		t.Fatal(err)
	}
	ports := r.Ports()
	for p, what := range tryInChild(t, ports) {
		if what != "taken" {
			t.Errorf("another process reserved port %d, held here: %s", p, what)
		}
	}
	if err := r.Release(); err != nil {
		t.Fatal(err)
	}
	for p, what := range tryInChild(t, ports) {
		if what != "reserved" {
			t.Errorf("another process could not reserve port %d, released here: %s", p, what)
		}
	}
}

// Fault: two reservations of one process ask for the same port. The
// second is refused it until the first releases it.
func TestReservationExcludesOthersInProcess(t *testing.T) {
	r, err := ReservePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	ports := r.Ports()
	if _, err := Reserve(ports[1]); !errors.Is(err, ErrPortTaken) {
		t.Fatalf("Reserve(%d) while reserved: %v, want ErrPortTaken", ports[1], err)
	}
	if err := r.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := Reserve(ports...)
	if err != nil {
		t.Fatalf("Reserve(%v) once released: %v", ports, err)
	}
	if err := again.Release(); err != nil {
		t.Fatal(err)
	}
	checkNoLockFiles(t, ports)
}

// Fault: a process holding reservations is killed (SIGKILL). While it
// lives its ports are reserved: Reserve refuses them and a reservation
// drawing from them passes them over. Once it is dead they are free at
// once, and their lock files are removed when this process releases them.
func TestReservationEndsWithProcess(t *testing.T) {
	r, err := ReservePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	ports := r.Ports()
	held, others := ports[:3], ports[3:]
	r.Release()
	cmd, stdin, stdout := startChild(t, "hold", held)
	if line, err := stdout.ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	_, heldErr := Reserve(held[0])
	drawn, drawErr := reserveFrom(ports, len(others))
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	stdin.Close()
	if !errors.Is(heldErr, ErrPortTaken) {
		t.Errorf("Reserve(%d) while another process holds it: %v, want ErrPortTaken", held[0], heldErr)
	}
	if drawErr != nil {
		t.Fatalf("reserving %d of %v while another process holds %v: %v", len(others), ports, held, drawErr)
	}
	if got := drawn.Ports(); !slices.Equal(got, others) {
		t.Errorf("reserving %d of %v while another process holds %v gave %v, want %v", len(others), ports, held, got, others)
	}
	drawn.Release()
	after, err := Reserve(held...)
	if err != nil {
		t.Fatalf("Reserve(%v) after the process holding them was killed: %v", held, err)
	}
	if err := after.Release(); err != nil {
		t.Fatal(err)
	}
	checkNoLockFiles(t, ports)
}

// Fault: several processes reserve ports at once from the same few
// candidates in the same order, as test processes that go test starts
// together would if they drew alike. No port is given to two of them
// while they hold it.
func TestProcessesReservingAtOnceNeverSharePorts(t *testing.T) {
	const children = 4
	r, err := ReservePorts(children*racePorts + 2)
	if err != nil {
		t.Fatal(err)
	}
	candidates := r.Ports()
	r.Release()
	outs := make([]*bufio.Reader, children)
	for i := range outs {
		_, _, outs[i] = startChild(t, "race", candidates)
	}
	owner := map[int]int{}
	for i, out := range outs {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
		for _, field := range strings.Fields(line) {
			p, err := strconv.Atoi(field)
			if err != nil {
				t.Fatalf("child %d said %q", i, line)
			}
			if other, ok := owner[p]; ok {
				t.Errorf("port %d given to processes %d and %d at once", p, other, i)
			}
			owner[p] = i
		}
	}
	if len(owner) == 0 {
		t.Fatal("no child reserved a port")
	}
}

// startChild starts this test binary as another process acting on ports
// as mode says, and returns it with its standard input and output. The
// process ends once its standard input is closed, which the end of the
// test does, and is waited for.
func startChild(t *testing.T, mode string, ports []int) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd := child(t, mode, ports)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil && cmd.ProcessState != nil && cmd.ProcessState.Exited() {
			t.Errorf("child %s: %v", mode, err)
		}
	})
	return cmd, stdin, bufio.NewReader(stdout)
}

// checkNoLockFiles fails the test where a lock file of ports is left.
func checkNoLockFiles(t *testing.T, ports []int) {
	t.Helper()
	for _, p := range ports {
		if _, err := os.Lstat(lockPath(p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("lock file of released port %d: %v, want none", p, err)
		}
	}
}

// Fault: a socket of a process that reserves nothing is bound to a port.
// Reserve refuses the port, and ReservePorts never gives it.
func TestReservationSkipsBoundPorts(t *testing.T) {
	r, err := ReservePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	port := r.Ports()[0]
	r.Release()
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := Reserve(port); !errors.Is(err, ErrPortTaken) {
		t.Fatalf("Reserve(%d) while bound: %v, want ErrPortTaken", port, err)
	}
	checkNoLockFiles(t, []int{port})
}

// Fault: sockets bound to port 0, which the kernel numbers from its
// ephemeral range, as helpers that ask the kernel for a free port, and
// listeners of other test processes, do. None is given a reserved port, so none can take the
// port of a server that is down.
func TestReservedPortsNotNumberedByKernel(t *testing.T) {
	r, err := ReservePorts(32)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	ephemeral := ephemeralRange()
	reserved := map[int]bool{}
	for _, p := range r.Ports() {
		reserved[p] = true
		if ephemeral.contains(p) {
			t.Errorf("reserved port %d lies in the kernel's ephemeral range %v", p, ephemeral)
		}
	}
	const draws = 20000 // a port of a range of 28,000 comes up in a few thousand
	for i := 0; i < draws; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if reserved[port] {
			t.Fatalf("the kernel gave reserved port %d to a socket bound to port 0 (draw %d)", port, i+1)
		}
	}
}

// The kernel's range parses as Linux writes it; anything else is refused.
func TestParsePortRange(t *testing.T) {
	if r, err := parsePortRange("32768\t60999\n"); err != nil || r != (portRange{32768, 60999}) {
		t.Fatalf("parsePortRange = %v, %v", r, err)
	}
	for _, bad := range []string{"", "32768", "60999 32768", "a b", "1 2 3"} {
		if _, err := parsePortRange(bad); err == nil {
			t.Errorf("parsePortRange(%q) accepted", bad)
		}
	}
}

// Reservations draw from every port from 10000 up that lies outside the
// kernel's ephemeral range, and from no other.
func TestCandidatePortsAvoidEphemeralRange(t *testing.T) {
	ephemeral := portRange{32768, 60999}
	ports := candidatePorts(ephemeral)
	if want := (32768 - 10000) + (65535 - 60999); len(ports) != want {
		t.Errorf("%d candidate ports, want %d", len(ports), want)
	}
	for _, p := range ports {
		if ephemeral.contains(p) || p < 10000 || p > 65535 {
			t.Fatalf("candidate port %d, in the ephemeral range %v or out of bounds", p, ephemeral)
		}
	}
}
