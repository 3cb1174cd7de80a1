package zktest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/internal/wire"
	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
)

// Op is a ZooKeeper request opcode, as seen on the wire.
type Op int32

// Opcodes a Fault can match and FaultDialer counts. OpAny matches every
// request but pings, handshakes, authentication (setAuth and the SASL
// exchange), watch resets and close.
const (
	OpAny      Op = 0
	OpCreate   Op = Op(wire.OpCreate)
	OpDelete   Op = Op(wire.OpDelete)
	OpExists   Op = Op(wire.OpExists)
	OpGetData  Op = Op(wire.OpGetData)
	OpSetData  Op = Op(wire.OpSetData)
	OpChildren Op = Op(wire.OpGetChildren2)
	OpSync     Op = Op(wire.OpSync)
	OpPing     Op = Op(wire.OpPing)
	OpCheck    Op = Op(wire.OpCheck)
	OpMulti    Op = Op(wire.OpMulti)
	OpClose    Op = Op(wire.OpClose)
	OpSetAuth  Op = Op(wire.OpSetAuth)
	// OpSASL is a request of the SASL exchange a client makes after the
	// handshake; only a Fault with this Op acts on it.
	OpSASL Op = Op(wire.OpSASL)
)

// String returns the opcode's name, such as "setData".
func (o Op) String() string {
	if o == OpAny {
		return "any"
	}
	return wire.OpName(int32(o))
}

// Action is what an armed Fault does to the request it matches.
type Action int

const (
	// DropReply forwards the request and cuts the connection when its reply
	// arrives, instead of delivering it: the server applied the request and
	// the client never hears so. The client sees zk.ErrConnectionClosed.
	DropReply Action = iota + 1
	// DropRequest cuts the connection instead of sending the request, which
	// is never applied. The client's write fails with a network error.
	DropRequest
	// CutRequest sends the first half of the request's frame and cuts the
	// connection. The server discards the partial frame, so the request is
	// never applied; the client's write succeeds and it learns of the loss
	// only when its read fails (zk.ErrConnectionClosed).
	CutRequest
	// RejectExpired keeps the request from the server and answers it as a
	// server answers a request on a session it has closed while the
	// connection stays open: error "session expired". Never applied. A
	// server can leave a client in that state when it closes a session
	// while the client is reconnecting; go-zookeeper then keeps using the
	// dead session. Arm it several times to make it last.
	RejectExpired
)

// String names the action.
func (a Action) String() string {
	switch a {
	case DropReply:
		return "drop-reply"
	case DropRequest:
		return "drop-request"
	case CutRequest:
		return "cut-request"
	case RejectExpired:
		return "reject-expired"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Fault selects the next request to act on.
type Fault struct {
	Action Action
	// Op selects the kind of request to match. OpCreate, OpSetData,
	// OpDelete and OpCheck match a request with that opcode on Path, and a
	// multi holding an op of that kind on Path: a Writer sends its fenced
	// writes as multis. OpMulti matches a multi holding an op of any kind
	// on Path. OpAny matches any request on Path but pings, handshakes,
	// authentication, watch resets and close. Other opcodes match requests
	// with that opcode only. The fault acts on the whole request it matches: for a
	// multi, on the whole transaction.
	Op Op
	// Path is the znode path to match. It matches the path as sent and the
	// same path under any root (a chroot, or the prefix of a Writer's
	// WithRoot), at a segment boundary: "/migration" matches "/migration"
	// and "/kafka/migration", not "/kafka/xmigration". Any leading segments
	// count as a root, so "/migration" also matches
	// "/brokers/topics/migration"; give the whole path as sent to narrow it.
	// Empty matches any request, on a path or not.
	Path string
	// Then, if set, runs when the fault acts, before the connection is
	// cut: for DropReply once the server has answered (so it committed),
	// for the others before the request reaches the server. It can kill
	// the server or expire the session at exactly that moment. It runs on
	// the client's I/O goroutine and holds it up until it returns, so it
	// must not call t.Fatal or t.FailNow: report with t.Error. Server and
	// Member methods return their errors and may be called from it.
	Then func()
}

// String describes the fault by its action, opcode and path, such as
// "drop-reply setData /migration".
func (f Fault) String() string {
	s := f.Action.String() + " " + f.Op.String()
	if f.Path != "" {
		s += " " + f.Path
	}
	return s
}

func (f Fault) matches(req wire.Request) bool {
	switch f.Op {
	case OpAny:
		return isUserRequest(req.Opcode) && f.onPath(req.Ops, anyOpcode)
	case OpMulti:
		return req.Opcode == wire.OpMulti && f.onPath(req.Ops, anyOpcode)
	}
	switch {
	case req.Opcode == int32(f.Op):
		return f.Path == "" || f.onPath(req.Ops, anyOpcode)
	case req.Opcode == wire.OpMulti:
		return f.onPath(req.Ops, int32(f.Op))
	}
	return false
}

// anyOpcode makes onPath accept ops of any kind.
const anyOpcode = 0

// onPath reports whether one of ops has opcode (anyOpcode for any) and a
// path that Path matches. An empty Path matches every request of an
// accepted opcode, with or without ops.
func (f Fault) onPath(ops []wire.PathOp, opcode int32) bool {
	if f.Path == "" && opcode == anyOpcode {
		return true
	}
	for _, op := range ops {
		if (opcode == anyOpcode || op.Opcode == opcode) && (f.Path == "" || pathMatches(f.Path, op.Path)) {
			return true
		}
	}
	return false
}

// pathMatches reports whether a request on sent touches want: the same
// path, or want under a root. want starts with "/", so a suffix match ends
// at a segment boundary. The root "/" matches only itself.
func pathMatches(want, sent string) bool {
	if sent == want {
		return true
	}
	return want != "/" && strings.HasPrefix(want, "/") && strings.HasSuffix(sent, want)
}

func isUserRequest(op int32) bool {
	switch op {
	case wire.OpPing, wire.OpSetAuth, wire.OpSASL, wire.OpSetWatches, wire.OpClose:
		return false
	}
	return true
}

// Armed is a Fault waiting for its request. It fires at most once.
type Armed struct {
	Fault Fault
	d     *FaultDialer
	fired chan struct{}
	at    string // file:line of the call to Arm, for the report of unfired faults
}

// Fired is closed once the fault has acted.
func (a *Armed) Fired() <-chan struct{} { return a.fired }

// HasFired reports whether the fault has acted.
func (a *Armed) HasFired() bool {
	select {
	case <-a.fired:
		return true
	default:
		return false
	}
}

func (a *Armed) act() {
	if a.Fault.Then != nil {
		a.Fault.Then()
	}
}

// Disarm withdraws the fault, which then never fires and is not reported
// as unfired. It reports false if the fault had already fired or matched
// its request (a DropReply fault fires when the reply comes).
func (a *Armed) Disarm() bool {
	a.d.mu.Lock()
	defer a.d.mu.Unlock()
	for i, x := range a.d.armed {
		if x == a {
			a.d.armed = append(a.d.armed[:i], a.d.armed[i+1:]...)
			return true
		}
	}
	return false
}

// FaultDialer is a zk.Dialer that parses ZooKeeper's framing on the
// connections it makes, counts requests by opcode, and cuts a connection
// around a chosen request when armed to.
//
// Pass it to go-zookeeper with zk.WithDialer(d.Dial) or d.Option(). A
// FaultDialer may serve several clients; counts and faults cover all of
// them. It is safe for concurrent use. Make one with NewFaultDialer; the
// zero value works too, without the report of unfired faults.
type FaultDialer struct {
	// Dialer makes the real connections; nil means net.DialTimeout with
	// zkconn's bound on the handshake (see zkconn.DefaultHandshakeTimeout).
	// For a TLS server make it a TLS dialer (zkconn.TLSDialer, or the
	// server's Security.Dialer): the FaultDialer then works on the clear
	// side of TLS and sees ZooKeeper's frames, and a cut closes the TLS
	// connection.
	Dialer zk.Dialer

	mu       sync.Mutex
	latency  time.Duration
	conns    map[*faultConn]struct{}
	armed    []*Armed
	counts   map[int32]int64
	largest  int
	dials    int64
	session  int64
	password []byte
}

// NewFaultDialer returns a FaultDialer that dials with net.DialTimeout,
// bounding the wait for the handshake as zkconn.Open does.
//
// When the test t ends, the faults still armed on it (never fired, never
// disarmed; see Unfired) fail t with t.Errorf, which lists each with the
// place it was armed: a fault that matches no request is a mistake in the
// test, not a fault the code survived. Disarm a fault that is not meant to
// fire. A skipped test is not failed. A nil t turns the report off, for
// programs; they can call Unfired themselves.
func NewFaultDialer(t testing.TB) *FaultDialer {
	d := &FaultDialer{}
	if t != nil {
		t.Cleanup(func() { d.reportUnfired(t) })
	}
	return d
}

// reportUnfired fails t when faults are still armed on d.
func (d *FaultDialer) reportUnfired(t testing.TB) {
	if t.Skipped() {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.armed) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "zktest: %d armed fault(s) never fired: no request matched (Disarm a fault that is not meant to fire):", len(d.armed))
	for _, a := range d.armed {
		fmt.Fprintf(&b, "\n\t%v, armed at %s", a.Fault, a.at)
	}
	t.Errorf("%s", b.String())
}

// Unfired returns the faults armed on d that have neither fired nor been
// disarmed, in the order armed: the faults still waiting for a request
// they match. A DropReply fault that matched a request and waits for its
// reply is not among them.
func (d *FaultDialer) Unfired() []Fault {
	d.mu.Lock()
	defer d.mu.Unlock()
	faults := make([]Fault, len(d.armed))
	for i, a := range d.armed {
		faults[i] = a.Fault
	}
	return faults
}

// SetLatency makes every frame of d's connections, opened or to come,
// take latency more to arrive, each way: a request's reply comes 2 ×
// latency later than on the bare connection, as across availability
// zones, while requests in flight together still overlap. Frames keep
// their order. 0 turns it off. Faults act on a frame before its delay.
func (d *FaultDialer) SetLatency(latency time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.latency = max(latency, 0)
}

// Latency returns what SetLatency set.
func (d *FaultDialer) Latency() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.latency
}

// Option returns the go-zookeeper option that makes a client dial through d.
func (d *FaultDialer) Option() func(*zk.Conn) { return zk.WithDialer(d.Dial) }

// Dial connects to address and wraps the connection.
func (d *FaultDialer) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	dial := d.Dialer
	if dial == nil {
		dial = zkconn.HandshakeTimeoutDialer(net.DialTimeout, zkconn.DefaultHandshakeTimeout)
	}
	c, err := dial(network, address, timeout)
	if err != nil {
		return nil, err
	}
	fc := &faultConn{Conn: c, d: d, drop: map[int32]*Armed{}, done: make(chan struct{})}
	d.mu.Lock()
	if d.conns == nil {
		d.conns = map[*faultConn]struct{}{}
	}
	d.conns[fc] = struct{}{}
	d.dials++
	d.mu.Unlock()
	return fc, nil
}

// Arm makes the fault act on the next request it matches. Several faults
// may be armed at once; each acts once, in the order armed. A fault still
// armed when the test ends fails it; see NewFaultDialer.
func (d *FaultDialer) Arm(f Fault) *Armed {
	if f.Action < DropReply || f.Action > RejectExpired {
		panic(fmt.Sprintf("zktest: Arm with invalid action %d", f.Action))
	}
	a := &Armed{Fault: f, d: d, fired: make(chan struct{}), at: callerOf()}
	d.mu.Lock()
	d.armed = append(d.armed, a)
	d.mu.Unlock()
	return a
}

// callerOf returns file:line of the caller of the function that calls it.
func callerOf() string {
	_, file, line, ok := runtime.Caller(2)
	if !ok {
		return "an unknown place"
	}
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}

// Count returns how many requests with opcode op were sent since the last
// ResetCounts. Requests cut by DropRequest are not counted; those cut by
// CutRequest are.
func (d *FaultDialer) Count(op Op) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if op == OpAny {
		var n int64
		for code, c := range d.counts {
			if isUserRequest(code) {
				n += c
			}
		}
		return n
	}
	return d.counts[int32(op)]
}

// Requests returns how many requests were sent since the last ResetCounts,
// not counting pings, handshakes and authentication: the round trips a
// caller's operations cost.
func (d *FaultDialer) Requests() int64 { return d.Count(OpAny) }

// Counts returns the request counts by opcode.
func (d *FaultDialer) Counts() map[Op]int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := make(map[Op]int64, len(d.counts))
	for code, c := range d.counts {
		m[Op(code)] = c
	}
	return m
}

// ResetCounts zeroes the request counts and the largest request size.
func (d *FaultDialer) ResetCounts() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.counts = nil
	d.largest = 0
}

// LargestRequest returns the payload size in bytes (the frame without its
// length prefix) of the largest request sent since the last ResetCounts.
// ZooKeeper refuses requests larger than its jute.maxbuffer.
func (d *FaultDialer) LargestRequest() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.largest
}

// Dials returns how many connections d has made.
func (d *FaultDialer) Dials() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dials
}

// Cut closes every open connection made by d at once, as a network failure
// would. It returns how many it closed.
func (d *FaultDialer) Cut() int {
	d.mu.Lock()
	conns := make([]*faultConn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	for _, c := range conns {
		c.cut()
	}
	return len(conns)
}

// Session returns the session id and password of the latest session a
// server granted on a connection made by d; see ExpireSession.
func (d *FaultDialer) Session() (id int64, password []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.session, append([]byte(nil), d.password...)
}

// match finds and consumes the first armed fault matching req.
func (d *FaultDialer) match(req wire.Request) *Armed {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, a := range d.armed {
		if a.Fault.matches(req) {
			d.armed = append(d.armed[:i], d.armed[i+1:]...)
			return a
		}
	}
	return nil
}

func (d *FaultDialer) count(req wire.Request, size int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.counts == nil {
		d.counts = map[int32]int64{}
	}
	d.counts[req.Opcode]++
	if size > d.largest {
		d.largest = size
	}
}

func (d *FaultDialer) forget(c *faultConn) {
	d.mu.Lock()
	delete(d.conns, c)
	d.mu.Unlock()
}

// errCut is what a client's write returns when DropRequest cut the
// connection under it.
var errCut = &net.OpError{Op: "write", Net: "tcp", Err: syscall.ECONNRESET}

// faultConn is one proxied connection.
type faultConn struct {
	net.Conn
	d *FaultDialer

	wmu sync.Mutex
	out wire.Framer // client-to-server bytes not yet a whole frame
	// delayed carries frames to the server under latency, once any was.
	delayed chan delayedFrame
	done    chan struct{} // closed with the connection
	greeted bool          // the handshake request went out

	rmu sync.Mutex
	buf []byte // read buffer
	// injected replies the server never sent, and the read deadline the
	// client asked for (overridden to wake a blocked read for them).
	injected     []byte
	readDeadline time.Time
	in           wire.Framer  // server-to-client bytes not yet a whole frame
	ready        []byte       // whole frames cleared for delivery
	due          []readyChunk // when parts of ready are due, under latency
	welcome      bool         // the handshake reply came in
	readErr      error        // returned once ready is drained

	mu     sync.Mutex
	drop   map[int32]*Armed // xids whose replies must not be delivered
	closed bool
}

func (c *faultConn) cut() {
	c.markClosed()
	c.Conn.Close()
	c.d.forget(c)
}

// markClosed records that the connection is closed and stops its delayed
// sender.
func (c *faultConn) markClosed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		close(c.done)
	}
	c.closed = true
}

func (c *faultConn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Close closes the connection.
func (c *faultConn) Close() error {
	c.markClosed()
	c.d.forget(c)
	return c.Conn.Close()
}

// Write forwards whole frames, acting on any armed fault they match.
func (c *faultConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.isClosed() {
		return 0, net.ErrClosed
	}
	c.out.Write(p)
	for {
		frame, err := c.out.Next()
		if err != nil {
			c.cut()
			return 0, err
		}
		if frame == nil {
			return len(p), nil
		}
		cut, err := c.forward(frame)
		if err != nil {
			return 0, err
		}
		if cut {
			return len(p), nil
		}
	}
}

// forward sends one whole frame to the server, acting on the armed fault
// it matches. cut reports that the connection was cut in the middle of the
// frame, which the client must take as written.
func (c *faultConn) forward(frame []byte) (cut bool, err error) {
	if !c.greeted {
		c.greeted = true
		return false, c.send(frame)
	}
	req, err := wire.ParseRequest(frame[wire.LengthPrefixSize:])
	if err != nil {
		// Forward what we cannot parse; the server decides.
		return false, c.send(frame)
	}
	armed := c.d.match(req)
	size := len(frame) - wire.LengthPrefixSize
	switch {
	case armed == nil:
		c.d.count(req, size)
	case armed.Fault.Action == DropRequest:
		armed.act()
		c.cut()
		close(armed.fired)
		return false, errCut
	case armed.Fault.Action == CutRequest:
		c.d.count(req, size)
		_, _ = c.Conn.Write(frame[:len(frame)/2])
		armed.act()
		c.cut()
		close(armed.fired)
		return true, nil
	case armed.Fault.Action == RejectExpired:
		armed.act()
		c.inject(req.Xid, errSessionExpired)
		close(armed.fired)
		return false, nil
	case armed.Fault.Action == DropReply:
		c.d.count(req, size)
		c.mu.Lock()
		c.drop[req.Xid] = armed
		c.mu.Unlock()
	}
	return false, c.send(frame)
}

// send writes a frame to the server, after the standing latency.
func (c *faultConn) send(frame []byte) error {
	latency := c.d.Latency()
	if latency == 0 && c.delayed == nil {
		_, err := c.Conn.Write(frame)
		return err
	}
	if c.delayed == nil {
		c.delayed = make(chan delayedFrame, 1024)
		go c.sendDelayed()
	}
	c.delayed <- delayedFrame{frame: append([]byte(nil), frame...), due: time.Now().Add(latency)}
	return nil
}

// delayedFrame is a frame on its way, due at the server at due.
type delayedFrame struct {
	frame []byte
	due   time.Time
}

// sendDelayed writes delayed frames to the server in order, each once
// due; it ends with the connection.
func (c *faultConn) sendDelayed() {
	for {
		var f delayedFrame
		select {
		case f = <-c.delayed:
		case <-c.done:
			return
		}
		time.Sleep(time.Until(f.due))
		if c.isClosed() {
			return
		}
		if _, err := c.Conn.Write(f.frame); err != nil {
			c.cut()
		}
	}
}

// arrived records that the bytes from offset n of ready on came in now:
// they are delivered after the standing latency.
func (c *faultConn) arrived(n int) {
	if latency := c.d.Latency(); latency > 0 && len(c.ready) > n {
		c.due = append(c.due, readyChunk{end: len(c.ready), at: time.Now().Add(latency)})
	}
}

// readyChunk is the end, in ready, of bytes due to the client at at.
type readyChunk struct {
	end int
	at  time.Time
}

// deliverable returns how many bytes of ready are due, waiting for the
// first chunk when none is.
func (c *faultConn) deliverable() int {
	if len(c.due) == 0 {
		return len(c.ready)
	}
	time.Sleep(time.Until(c.due[0].at))
	return c.due[0].end
}

// delivered records that n bytes of ready went to the client.
func (c *faultConn) delivered(n int) {
	kept := c.due[:0]
	for _, ch := range c.due {
		if ch.end -= n; ch.end > 0 {
			kept = append(kept, ch)
		}
	}
	c.due = kept
}

// Read delivers whole reply frames, cutting the connection in place of a
// reply that an armed DropReply fault claimed, each after the standing
// latency.
func (c *faultConn) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.buf == nil {
		c.buf = make([]byte, 64<<10)
	}
	for len(c.ready) == 0 {
		if c.readErr != nil {
			return 0, c.readErr
		}
		if c.takeInjected() {
			continue
		}
		n, err := c.Conn.Read(c.buf)
		if n > 0 {
			c.in.Write(c.buf[:n])
			before := len(c.ready)
			c.sortFrames()
			c.arrived(before)
		}
		if c.takeInjected() && isTimeout(err) {
			err = nil // the wake-up deadline, not the client's
		}
		if err != nil && c.readErr == nil {
			c.readErr = err
		}
	}
	n := copy(p, c.ready[:c.deliverable()])
	c.ready = c.ready[n:]
	c.delivered(n)
	return n, nil
}

// errSessionExpired is ZooKeeper's error code for a closed session.
const errSessionExpired = -112

// inject queues a reply with the given error code for request xid, as if
// the server had sent it, and wakes a read blocked on the connection.
func (c *faultConn) inject(xid int32, code int32) {
	frame := binary.BigEndian.AppendUint32(nil, wire.ReplyHeaderSize)
	frame = binary.BigEndian.AppendUint32(frame, uint32(xid))
	frame = binary.BigEndian.AppendUint64(frame, 0)
	frame = binary.BigEndian.AppendUint32(frame, uint32(code))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.injected = append(c.injected, frame...)
	_ = c.Conn.SetReadDeadline(time.Now())
}

// takeInjected moves injected replies to the frames ready for delivery and
// restores the client's read deadline.
func (c *faultConn) takeInjected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.injected) == 0 {
		return false
	}
	c.ready = append(c.ready, c.injected...)
	c.injected = nil
	_ = c.Conn.SetReadDeadline(c.readDeadline)
	return true
}

// SetReadDeadline records the client's deadline, which inject overrides
// for a moment.
func (c *faultConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDeadline = t
	if len(c.injected) > 0 {
		return nil // keep the wake-up deadline until they are taken
	}
	return c.Conn.SetReadDeadline(t)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// sortFrames moves whole frames from in to ready, stopping at a dropped reply.
func (c *faultConn) sortFrames() {
	for c.readErr == nil {
		frame, err := c.in.Next()
		if err != nil {
			c.readErr = err
			c.cut()
			return
		}
		if frame == nil {
			return
		}
		payload := frame[wire.LengthPrefixSize:]
		if !c.welcome {
			c.welcome = true
			if r, err := wire.ParseConnectResponse(payload); err == nil && r.SessionID != 0 {
				c.d.mu.Lock()
				c.d.session, c.d.password = r.SessionID, append([]byte(nil), r.Passwd...)
				c.d.mu.Unlock()
			}
			c.ready = append(c.ready, frame...)
			continue
		}
		if h, err := wire.ParseReplyHeader(payload); err == nil && h.Xid >= 0 {
			c.mu.Lock()
			armed := c.drop[h.Xid]
			delete(c.drop, h.Xid)
			c.mu.Unlock()
			if armed != nil {
				armed.act()
				c.cut()
				close(armed.fired)
				c.readErr = io.EOF
				return
			}
		}
		c.ready = append(c.ready, frame...)
	}
}
