// Package zkserver starts and stops real ZooKeeper server processes from a
// local installation, standalone or as a loopback ensemble, on ports
// reserved across processes (see Reservation).
package zkserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNoInstall reports that no ZooKeeper installation was found.
var ErrNoInstall = errors.New("zkserver: no ZooKeeper installation found (set ZOOKEEPER_HOME or install Debian's zookeeper package)")

// DebianHome is where Debian's zookeeper package installs the server scripts.
const DebianHome = "/usr/share/zookeeper"

// Install is a local ZooKeeper installation.
type Install struct {
	// Script is the path of bin/zkServer.sh.
	Script string
}

// logFlags gives Debian's installation, which ships no SLF4J binding, a
// simple one writing warnings to the server's output, so that a server that
// fails says why. With tls it adds the Netty codec that Debian's classpath
// lacks: without it the server opens its TLS port and fails every handshake
// (NoClassDefFoundError: io/netty/handler/codec/ByteToMessageDecoder).
func (i Install) logFlags(tls bool) string {
	const simple = "/usr/share/java/slf4j-simple.jar"
	const nettyCodec = "/usr/share/java/netty-codec.jar"
	if !strings.HasPrefix(i.Script, DebianHome+"/") {
		return ""
	}
	classpath := "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar"
	if tls && exists(nettyCodec) {
		classpath += ":" + nettyCodec
	}
	if !exists(simple) {
		return "-cp " + classpath
	}
	level := "warn"
	if l := os.Getenv("ZKTEST_SERVER_LOG_LEVEL"); l != "" {
		level = l
	}
	return "-cp " + classpath + ":" + simple +
		" -Dorg.slf4j.simpleLogger.defaultLogLevel=" + level + " -Dorg.slf4j.simpleLogger.showDateTime=true"
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// FindInstall looks for zkServer.sh under $ZOOKEEPER_HOME, then under
// Debian's layout.
func FindInstall() (Install, error) {
	var homes []string
	if h := os.Getenv("ZOOKEEPER_HOME"); h != "" {
		homes = append(homes, h)
	}
	homes = append(homes, DebianHome)
	for _, h := range homes {
		script := filepath.Join(h, "bin", "zkServer.sh")
		if st, err := os.Stat(script); err == nil && !st.IsDir() {
			if _, err := exec.LookPath("java"); err != nil {
				return Install{}, fmt.Errorf("zkserver: found %s but no java on PATH: %w", script, err)
			}
			return Install{Script: script}, nil
		}
	}
	return Install{}, ErrNoInstall
}

// Member describes one server of an ensemble (or the single standalone one).
type Member struct {
	ID           int
	ClientPort   int
	QuorumPort   int
	ElectionPort int
}

// Config is what a server process is started with.
type Config struct {
	// Dir holds the configuration, the data and the output of the server.
	Dir string
	// Self is this server; Peers lists every member of the ensemble
	// (Self included), or is empty for a standalone server. Each entry but
	// Self's gives the ports at which Self reaches that member, which may
	// be a proxy's; members may thus be started with different lists.
	Self  Member
	Peers []Member
	// TickTime is ZooKeeper's basic time unit; zero means 500ms.
	TickTime time.Duration
	// ForceSync makes the server fsync its log before acknowledging.
	ForceSync bool
	// FullJIT runs the JVM with both of its compilers, as production
	// servers run; by default it stops at the first, which starts faster.
	FullJIT bool
	// JVMFlags are extra JVM flags, appended after the defaults.
	JVMFlags string
	// TLS, when set, makes the server serve clients over TLS only: Netty
	// on Self.ClientPort as secureClientPort, and no plain client port.
	TLS *TLS
	// Settings are extra zoo.cfg entries, such as
	// "enforce.auth.enabled": "true", written after the generated ones in
	// the order of their keys. ZooKeeper turns keys it does not know into
	// system properties prefixed "zookeeper.".
	Settings map[string]string
}

// TLS is the TLS configuration of a server's client port.
type TLS struct {
	// KeyStore is a PEM file holding the server's unencrypted PKCS#8
	// private key ("BEGIN PRIVATE KEY") followed by its certificate chain.
	KeyStore string
	// TrustStore is a PEM file of the CA certificates that client
	// certificates must chain to.
	TrustStore string
	// ClientAuth is ssl.clientAuth: "need" (the default when empty), "want"
	// or "none".
	ClientAuth string
	// Client is how WaitReady and FourLetterWord connect: a client
	// certificate when the server needs one. Verification of the server
	// may be off; they only need a TLS session.
	Client *tls.Config
}

// Process is a running ZooKeeper server.
type Process struct {
	cfg     Config
	install Install
	addr    string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error // exit status once done is closed
}

// Start writes the configuration and starts the server. It does not wait
// for the server to be ready; see WaitReady.
func Start(install Install, cfg Config) (*Process, error) {
	if cfg.TickTime == 0 {
		cfg.TickTime = 500 * time.Millisecond
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "data"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cfg.Dir, "zoo.cfg"), []byte(cfg.render()), 0o644); err != nil {
		return nil, err
	}
	if len(cfg.Peers) > 0 {
		myid := []byte(strconv.Itoa(cfg.Self.ID) + "\n")
		if err := os.WriteFile(filepath.Join(cfg.Dir, "data", "myid"), myid, 0o644); err != nil {
			return nil, err
		}
	}
	p := &Process{cfg: cfg, install: install, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Self.ClientPort))}
	return p, p.spawn()
}

func (c Config) render() string {
	var b strings.Builder
	tick := int(c.TickTime / time.Millisecond)
	fmt.Fprintf(&b, "tickTime=%d\ninitLimit=10\nsyncLimit=5\n", tick)
	fmt.Fprintf(&b, "dataDir=%s\n", filepath.Join(c.Dir, "data"))
	c.renderClientPort(&b)
	b.WriteString("admin.enableServer=false\n4lw.commands.whitelist=*\n")
	b.WriteString("minSessionTimeout=1000\nmaxSessionTimeout=60000\n")
	b.WriteString("maxClientCnxns=0\npreAllocSize=4096\nsnapCount=100000\nautopurge.purgeInterval=0\n")
	if !c.ForceSync {
		b.WriteString("forceSync=no\n")
	}
	if len(c.Peers) > 0 {
		b.WriteString("reconfigEnabled=false\nstandaloneEnabled=false\n")
		for _, m := range c.Peers {
			fmt.Fprintf(&b, "server.%d=127.0.0.1:%d:%d\n", m.ID, m.QuorumPort, m.ElectionPort)
		}
	}
	c.renderSettings(&b)
	return b.String()
}

func (c Config) renderClientPort(b *strings.Builder) {
	if c.TLS == nil {
		fmt.Fprintf(b, "clientPort=%d\nclientPortAddress=127.0.0.1\n", c.Self.ClientPort)
		return
	}
	clientAuth := c.TLS.ClientAuth
	if clientAuth == "" {
		clientAuth = "need"
	}
	fmt.Fprintf(b, "secureClientPort=%d\nsecureClientPortAddress=127.0.0.1\n", c.Self.ClientPort)
	b.WriteString("serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n")
	fmt.Fprintf(b, "ssl.keyStore.location=%s\nssl.keyStore.type=PEM\n", c.TLS.KeyStore)
	fmt.Fprintf(b, "ssl.trustStore.location=%s\nssl.trustStore.type=PEM\n", c.TLS.TrustStore)
	fmt.Fprintf(b, "ssl.clientAuth=%s\n", clientAuth)
}

func (c Config) renderSettings(b *strings.Builder) {
	keys := make([]string, 0, len(c.Settings))
	for k := range c.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "%s=%s\n", k, c.Settings[k])
	}
}

// compilerFlags are the JVM flags that choose its compilers.
func (c Config) compilerFlags() string {
	if c.FullJIT {
		return ""
	}
	return "-XX:TieredStopAtLevel=1"
}

func (p *Process) spawn() error {
	out, err := os.OpenFile(filepath.Join(p.cfg.Dir, "server.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command(p.install.Script, "start-foreground", filepath.Join(p.cfg.Dir, "zoo.cfg"))
	jvm := strings.Join([]string{
		"-Dzookeeper.log.dir=" + p.cfg.Dir,
		"-Dzookeeper.root.logger=INFO,CONSOLE",
		"-Dzookeeper.console.threshold=INFO",
		"-Dzookeeper.cnxTimeout=1000",
		"-Xmx256m", "-XX:+UseSerialGC", "-Xss512k",
		p.cfg.compilerFlags(),
		p.install.logFlags(p.cfg.TLS != nil),
		p.cfg.JVMFlags,
	}, " ")
	cmd.Env = append(os.Environ(), "JVMFLAGS="+jvm, "ZOO_LOG_DIR="+p.cfg.Dir, "ZOOPIDFILE="+filepath.Join(p.cfg.Dir, "zookeeper.pid"))
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("zkserver: start %s: %w", p.install.Script, err)
	}
	done := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.done, p.err = cmd, done, nil
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// Addr is the client address, 127.0.0.1:port.
func (p *Process) Addr() string { return p.addr }

// Dir is the directory holding the server's configuration, data and output.
func (p *Process) Dir() string { return p.cfg.Dir }

// Pid is the process id of the running server, or 0 when it is not running.
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil || isClosed(p.done) {
		return 0
	}
	return p.cmd.Process.Pid
}

// Running reports whether the server process is alive.
func (p *Process) Running() bool { return p.Pid() != 0 }

func isClosed(ch chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// WaitReady waits until the server answers ruok with imok and, in an
// ensemble, serves clients as leader or follower.
func (p *Process) WaitReady(ctx context.Context) error {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	var last error
	for {
		select {
		case <-done:
			return fmt.Errorf("zkserver: server %s exited before it was ready: %v\n%s", p.addr, p.exitErr(), p.OutputTail(2048))
		case <-ctx.Done():
			return fmt.Errorf("zkserver: server %s not ready: %w (last check: %v)\n%s", p.addr, ctx.Err(), last, p.OutputTail(2048))
		default:
		}
		if last = p.ready(); last == nil {
			return nil
		}
		select {
		case <-done:
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ready returns nil once the server serves clients, else what it lacks.
// ruok answers imok as soon as the port is open, before the server is
// running; a client whose handshake arrives then is never answered
// (ZooKeeper 3.8 fails to close the connection) and waits out
// go-zookeeper's long handshake timeout. srvr reports a mode only once the
// server is running. On a TLS port both complete a TLS handshake first: a
// server whose keystore it cannot use opens the port all the same.
func (p *Process) ready() error {
	if r, err := p.FourLetterWord("ruok", time.Second); err != nil || r != "imok" {
		return fmt.Errorf("ruok: %q, %v", r, err)
	}
	mode, err := p.Mode()
	switch {
	case err != nil:
		return fmt.Errorf("srvr: %w", err)
	case len(p.cfg.Peers) == 0 && mode != "standalone", len(p.cfg.Peers) > 0 && mode != "leader" && mode != "follower":
		return fmt.Errorf("srvr: mode %q", mode)
	}
	return nil
}

func (p *Process) exitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// OutputTail returns up to n trailing bytes of the server's output.
func (p *Process) OutputTail(n int) string {
	b, err := os.ReadFile(filepath.Join(p.cfg.Dir, "server.out"))
	if err != nil {
		return ""
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// Stop sends SIGTERM and waits for the process to exit, escalating to
// SIGKILL after timeout.
func (p *Process) Stop(timeout time.Duration) error {
	return p.signal(syscall.SIGTERM, timeout)
}

// Kill sends SIGKILL and waits for the process to exit.
func (p *Process) Kill() error {
	return p.signal(syscall.SIGKILL, 10*time.Second)
}

func (p *Process) signal(sig syscall.Signal, timeout time.Duration) error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil || isClosed(done) {
		return nil
	}
	// The server runs in its own process group; signal the group so that
	// a wrapper script and the JVM it started go together.
	_ = syscall.Kill(-cmd.Process.Pid, sig)
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("zkserver: server %s (pid %d) did not exit", p.addr, cmd.Process.Pid)
	}
}

// Restart starts a stopped or killed server again on the same data
// directory and ports.
func (p *Process) Restart() error {
	if p.Running() {
		return fmt.Errorf("zkserver: server %s is still running", p.addr)
	}
	return p.spawn()
}

// FourLetterWord sends a four-letter command and returns the reply,
// trimmed of surrounding space.
func FourLetterWord(addr, cmd string, timeout time.Duration) (string, error) {
	return fourLetterWord(addr, cmd, timeout, nil)
}

// FourLetterWord sends a four-letter command to the server, over TLS when
// it serves TLS, and returns the reply.
func (p *Process) FourLetterWord(cmd string, timeout time.Duration) (string, error) {
	var config *tls.Config
	if p.cfg.TLS != nil {
		config = p.cfg.TLS.Client
		if config == nil {
			config = &tls.Config{InsecureSkipVerify: true}
		}
	}
	return fourLetterWord(p.addr, cmd, timeout, config)
}

// fourLetterWord sends cmd to addr, over TLS with config when not nil.
func fourLetterWord(addr, cmd string, timeout time.Duration, config *tls.Config) (string, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	if config != nil {
		tc := tls.Client(c, config)
		if err := tc.Handshake(); err != nil {
			return "", fmt.Errorf("zkserver: TLS handshake with %s: %w", addr, err)
		}
		c = tc
	}
	if _, err := io.WriteString(c, cmd); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	if err != nil && len(b) == 0 {
		return "", err
	}
	return string(bytes.TrimSpace(b)), nil
}

// Mode returns the server's role as the srvr command reports it:
// "standalone", "leader", "follower", or "" when it is not serving.
func Mode(addr string) (string, error) {
	r, err := FourLetterWord(addr, "srvr", time.Second)
	if err != nil {
		return "", err
	}
	return parseMode(r), nil
}

// Mode returns the server's role as Mode does, asking over TLS when the
// server serves TLS.
func (p *Process) Mode() (string, error) {
	r, err := p.FourLetterWord("srvr", time.Second)
	if err != nil {
		return "", err
	}
	return parseMode(r), nil
}

// Status is a server's account of itself, as its srvr command gives it.
type Status struct {
	// Mode is "standalone", "leader", "follower", or "" when the server
	// does not serve clients, such as while it looks for a leader.
	Mode string
	// Zxid is the id of the last transaction the server applied; zero
	// when it does not serve clients, since srvr then says nothing more.
	Zxid int64
}

// Status asks the server for its mode and last zxid, over TLS when it
// serves TLS.
func (p *Process) Status(timeout time.Duration) (Status, error) {
	r, err := p.FourLetterWord("srvr", timeout)
	if err != nil {
		return Status{}, err
	}
	return parseStatus(r)
}

func parseStatus(srvr string) (Status, error) {
	st := Status{Mode: parseMode(srvr)}
	sc := bufio.NewScanner(strings.NewReader(srvr))
	for sc.Scan() {
		if z, ok := strings.CutPrefix(sc.Text(), "Zxid: "); ok {
			v, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(z), "0x"), 16, 64)
			if err != nil {
				return Status{}, fmt.Errorf("zkserver: srvr zxid %q: %w", z, err)
			}
			st.Zxid = v
		}
	}
	return st, nil
}

func parseMode(srvr string) string {
	sc := bufio.NewScanner(strings.NewReader(srvr))
	for sc.Scan() {
		if m, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return strings.TrimSpace(m)
		}
	}
	return ""
}
