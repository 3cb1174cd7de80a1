package zktest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// quorumNet carries the traffic between an ensemble's members: every
// member reaches every other member's quorum and election ports through a
// proxy of its own, one for each ordered pair of members and each port, so
// that the link between two members can be cut and healed.
//
// A cut link is silent, as a network partition is: its proxies accept
// connections and read what arrives, but deliver nothing either way, so
// that each side notices only by its own timeouts. Healing a link closes
// the connections that lived through its cut (their streams lost bytes)
// and lets new ones through.
type quorumNet struct {
	mu      sync.Mutex
	cut     map[link]bool
	pipes   map[*pipe]struct{}
	proxies []*proxy
	wg      sync.WaitGroup
}

// link is the undirected link between two members, by ID, a < b.
type link struct{ a, b int }

func linkOf(i, j int) link {
	if i > j {
		i, j = j, i
	}
	return link{i, j}
}

// proxy forwards the connections member from makes to one port of member
// to.
type proxy struct {
	from, to int
	ln       net.Listener
	target   string
	// announce, for an election port, is the address member to reaches
	// member from's election port at; it replaces the address that from
	// announces in its first message, since the receiver of a connection
	// from a member of lower ID connects back to the address announced.
	announce string
}

// pipe is one proxied connection: in from the dialling member, out to the
// target port.
type pipe struct {
	link    link
	in, out net.Conn
	stale   bool // lived through a cut of its link; delivers nothing
}

// port returns the proxy's listening port.
func (p *proxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// newQuorumNet listens, for every ordered pair of the members, on a
// quorum and an election proxy towards the real ports given by quorum and
// election (indexed by member ID - 1).
func newQuorumNet(quorum, election []int) (*quorumNet, error) {
	q := &quorumNet{cut: map[link]bool{}, pipes: map[*pipe]struct{}{}}
	n := len(quorum)
	elections := map[[2]int]*proxy{}
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			if i == j {
				continue
			}
			if _, err := q.listen(i, j, quorum[j-1]); err != nil {
				return nil, errors.Join(err, q.close())
			}
			ep, err := q.listen(i, j, election[j-1])
			if err != nil {
				return nil, errors.Join(err, q.close())
			}
			elections[[2]int{i, j}] = ep
		}
	}
	for key, ep := range elections {
		ep.announce = elections[[2]int{key[1], key[0]}].ln.Addr().String()
	}
	for _, p := range q.proxies {
		q.wg.Add(1)
		go q.serve(p)
	}
	return q, nil
}

func (q *quorumNet) listen(from, to, targetPort int) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("zktest: quorum proxy: %w", err)
	}
	p := &proxy{from: from, to: to, ln: ln, target: net.JoinHostPort("127.0.0.1", strconv.Itoa(targetPort))}
	q.proxies = append(q.proxies, p)
	return p, nil
}

// ports returns the quorum and election ports through which member from
// reaches member to.
func (q *quorumNet) ports(from, to int) (quorum, election int) {
	var found []int
	for _, p := range q.proxies {
		if p.from == from && p.to == to {
			found = append(found, p.port())
		}
	}
	return found[0], found[1]
}

func (q *quorumNet) serve(p *proxy) {
	defer q.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			q.forward(p, c)
		}()
	}
}

// forward carries one connection of p until either side closes it or its
// link heals after a cut.
func (q *quorumNet) forward(p *proxy, in net.Conn) {
	pp := &pipe{link: linkOf(p.from, p.to), in: in}
	q.mu.Lock()
	pp.stale = q.cut[pp.link]
	q.pipes[pp] = struct{}{}
	q.mu.Unlock()
	defer q.drop(pp)
	if pp.stale {
		_, _ = io.Copy(io.Discard, in) // a partition: nothing reaches the target
		return
	}
	out, err := net.DialTimeout("tcp", p.target, time.Second)
	if err != nil {
		return
	}
	q.mu.Lock()
	pp.out = out
	stale := pp.stale
	q.mu.Unlock()
	if stale {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		q.copy(pp, in, out)
		pp.close()
	}()
	if p.announce != "" {
		if err := q.rewriteAnnouncement(pp, p.announce); err != nil {
			pp.close()
			<-done
			return
		}
	}
	q.copy(pp, out, in)
	pp.close()
	<-done
}

// copy forwards what src sends to dst while pp is not stale; once stale
// it reads and drops.
func (q *quorumNet) copy(pp *pipe, dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !q.isStale(pp) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (q *quorumNet) isStale(pp *pipe) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return pp.stale
}

// rewriteAnnouncement reads the first message of an election connection
// (protocol version, server ID, then the length and bytes of the
// election address the sender announces) and forwards it with announce
// as the address.
func (q *quorumNet) rewriteAnnouncement(pp *pipe, announce string) error {
	var head [20]byte
	if _, err := io.ReadFull(pp.in, head[:8]); err != nil {
		return err
	}
	if int64(binary.BigEndian.Uint64(head[:8])) >= 0 {
		// An old protocol: the server ID alone, no address.
		return q.write(pp, head[:8])
	}
	if _, err := io.ReadFull(pp.in, head[8:]); err != nil {
		return err
	}
	size := binary.BigEndian.Uint32(head[16:20])
	if size > 1<<16 {
		return fmt.Errorf("zktest: election message of %d bytes", size)
	}
	if _, err := io.CopyN(io.Discard, pp.in, int64(size)); err != nil {
		return err
	}
	msg := append([]byte(nil), head[:16]...)
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(announce)))
	return q.write(pp, append(msg, announce...))
}

func (q *quorumNet) write(pp *pipe, b []byte) error {
	if q.isStale(pp) {
		return nil
	}
	_, err := pp.out.Write(b)
	return err
}

func (pp *pipe) close() {
	pp.in.Close()
	if pp.out != nil {
		pp.out.Close()
	}
}

func (q *quorumNet) drop(pp *pipe) {
	pp.close()
	q.mu.Lock()
	delete(q.pipes, pp)
	q.mu.Unlock()
}

// setCut makes the links between members in different groups silent and
// those within a group open, as partition describes it; it closes the
// connections of links that heal after a cut.
func (q *quorumNet) setCut(cut map[link]bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for pp := range q.pipes {
		switch {
		case cut[pp.link]:
			pp.stale = true
		case pp.stale:
			pp.close()
		}
	}
	q.cut = cut
}

// close stops every proxy and closes their connections.
func (q *quorumNet) close() error {
	var errs []error
	for _, p := range q.proxies {
		if err := p.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	q.mu.Lock()
	for pp := range q.pipes {
		pp.close()
	}
	q.mu.Unlock()
	q.wg.Wait()
	return errors.Join(errs...)
}
