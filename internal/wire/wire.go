// Package wire reads and sizes ZooKeeper's client protocol (jute) frames.
//
// Every frame in either direction is a big-endian int32 length followed by
// that many payload bytes. The first frame each way is the session
// handshake; after it, requests start with xid and opcode, and replies with
// xid, zxid and an error code. The package knows just enough of the
// encoding to route, count and size requests; it is not a client.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Opcodes of the ZooKeeper client protocol.
const (
	OpCreate          int32 = 1
	OpDelete          int32 = 2
	OpExists          int32 = 3
	OpGetData         int32 = 4
	OpSetData         int32 = 5
	OpGetACL          int32 = 6
	OpSetACL          int32 = 7
	OpGetChildren     int32 = 8
	OpSync            int32 = 9
	OpPing            int32 = 11
	OpGetChildren2    int32 = 12
	OpCheck           int32 = 13
	OpMulti           int32 = 14
	OpCreate2         int32 = 15
	OpReconfig        int32 = 16
	OpCreateContainer int32 = 19
	OpCreateTTL       int32 = 21
	OpClose           int32 = -11
	OpSetAuth         int32 = 100
	OpSetWatches      int32 = 101
	OpSASL            int32 = 102
	// OpError marks a failed operation inside a multi reply.
	OpError int32 = -1
)

// Special xids.
const (
	XidWatchEvent int32 = -1
	XidPing       int32 = -2
)

// Fixed sizes, in bytes, of the encoded pieces a request is made of.
const (
	LengthPrefixSize  = 4 // the int32 in front of every frame
	RequestHeaderSize = 8 // xid + opcode
	MultiHeaderSize   = 9 // type int32 + done bool + err int32, before each multi op and once at the end
	ReplyHeaderSize   = 16
)

// ErrShort reports a payload that ends before its fields do.
var ErrShort = errors.New("wire: payload too short")

// OpName returns a short lowercase name for an opcode, for logs and reports.
func OpName(op int32) string {
	switch op {
	case OpCreate:
		return "create"
	case OpDelete:
		return "delete"
	case OpExists:
		return "exists"
	case OpGetData:
		return "getData"
	case OpSetData:
		return "setData"
	case OpGetACL:
		return "getACL"
	case OpSetACL:
		return "setACL"
	case OpGetChildren:
		return "getChildren"
	case OpSync:
		return "sync"
	case OpPing:
		return "ping"
	case OpGetChildren2:
		return "getChildren2"
	case OpCheck:
		return "check"
	case OpMulti:
		return "multi"
	case OpCreate2:
		return "create2"
	case OpReconfig:
		return "reconfig"
	case OpCreateContainer:
		return "createContainer"
	case OpCreateTTL:
		return "createTTL"
	case OpClose:
		return "close"
	case OpSetAuth:
		return "setAuth"
	case OpSetWatches:
		return "setWatches"
	case OpSASL:
		return "sasl"
	}
	return fmt.Sprintf("op(%d)", op)
}

// Request is what a router needs to know of a client request.
type Request struct {
	Xid    int32
	Opcode int32
	// Ops holds the znode operations the request carries, in order: for a
	// multi one per op, each with the op's own opcode; for a request on a
	// path (create, setData, exists, ...) one, with the request's opcode;
	// none for a request on no path, such as ping or close.
	Ops []PathOp
}

// PathOp is one operation on one znode: a request on a path, or one op of
// a multi.
type PathOp struct {
	Opcode int32
	Path   string
}

// Paths returns the path of every op in r.Ops, in order.
func (r Request) Paths() []string {
	paths := make([]string, len(r.Ops))
	for i, op := range r.Ops {
		paths[i] = op.Path
	}
	return paths
}

// ParseRequest reads a request payload (the frame without its length prefix).
func ParseRequest(payload []byte) (Request, error) {
	r := reader{b: payload}
	req := Request{Xid: r.int32(), Opcode: r.int32()}
	if r.err != nil {
		return req, r.err
	}
	switch req.Opcode {
	case OpMulti:
		for {
			typ := r.int32()
			done := r.bool()
			r.int32() // err, always -1 in a request
			if r.err != nil || done {
				break
			}
			path, err := r.opBody(typ)
			if err != nil {
				return req, err
			}
			req.Ops = append(req.Ops, PathOp{Opcode: typ, Path: path})
		}
	case OpCreate, OpDelete, OpExists, OpGetData, OpSetData, OpGetACL, OpSetACL,
		OpGetChildren, OpSync, OpGetChildren2, OpCheck, OpCreate2, OpCreateContainer, OpCreateTTL:
		req.Ops = append(req.Ops, PathOp{Opcode: req.Opcode, Path: r.string()})
	}
	return req, r.err
}

// ReplyHeader is the header of every reply after the handshake.
type ReplyHeader struct {
	Xid  int32
	Zxid int64
	Err  int32
}

// ParseReplyHeader reads the header of a reply payload.
func ParseReplyHeader(payload []byte) (ReplyHeader, error) {
	r := reader{b: payload}
	h := ReplyHeader{Xid: r.int32(), Zxid: r.int64(), Err: r.int32()}
	return h, r.err
}

// ConnectRequest is the client's handshake.
type ConnectRequest struct {
	ProtocolVersion int32
	LastZxidSeen    int64
	TimeoutMs       int32
	SessionID       int64
	Passwd          []byte
}

// Append appends the framed handshake (length prefix included) to dst.
func (c ConnectRequest) Append(dst []byte) []byte {
	body := 4 + 8 + 4 + 8 + 4 + len(c.Passwd) + 1
	dst = binary.BigEndian.AppendUint32(dst, uint32(body))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.ProtocolVersion))
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.LastZxidSeen))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.TimeoutMs))
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.SessionID))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.Passwd)))
	dst = append(dst, c.Passwd...)
	return append(dst, 0) // readOnly = false
}

// ConnectResponse is the server's handshake reply.
type ConnectResponse struct {
	ProtocolVersion int32
	TimeoutMs       int32
	SessionID       int64
	Passwd          []byte
}

// ParseConnectResponse reads the server's handshake payload. A SessionID of
// zero means the server refused the session (it had expired).
func ParseConnectResponse(payload []byte) (ConnectResponse, error) {
	r := reader{b: payload}
	c := ConnectResponse{ProtocolVersion: r.int32(), TimeoutMs: r.int32(), SessionID: r.int64()}
	c.Passwd = r.buffer()
	return c, r.err
}

// AppendRequestHeader appends a framed request with an empty body, such as
// close or ping, to dst.
func AppendRequestHeader(dst []byte, xid, opcode int32) []byte {
	dst = binary.BigEndian.AppendUint32(dst, RequestHeaderSize)
	dst = binary.BigEndian.AppendUint32(dst, uint32(xid))
	return binary.BigEndian.AppendUint32(dst, uint32(opcode))
}

// XidAuth is the xid ZooKeeper's own client gives setAuth requests.
const XidAuth int32 = -4

// AppendSetAuth appends a framed setAuth request, which adds credentials
// of scheme to the connection, to dst.
func AppendSetAuth(dst []byte, xid int32, scheme string, auth []byte) []byte {
	body := RequestHeaderSize + 4 + StringSize(len(scheme)) + StringSize(len(auth))
	dst = binary.BigEndian.AppendUint32(dst, uint32(body))
	dst = binary.BigEndian.AppendUint32(dst, uint32(xid))
	dst = binary.BigEndian.AppendUint32(dst, uint32(OpSetAuth))
	dst = binary.BigEndian.AppendUint32(dst, 0) // type
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(scheme)))
	dst = append(dst, scheme...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(auth)))
	return append(dst, auth...)
}

// Framer cuts a byte stream into frames.
type Framer struct {
	buf []byte
}

// Write appends stream bytes.
func (f *Framer) Write(p []byte) { f.buf = append(f.buf, p...) }

// Next returns the next complete frame, length prefix included, or nil when
// the buffered bytes do not hold one yet. A negative length is an error.
// The returned slice is valid until the next call to Write.
func (f *Framer) Next() ([]byte, error) {
	if len(f.buf) < LengthPrefixSize {
		return nil, nil
	}
	n := int32(binary.BigEndian.Uint32(f.buf))
	if n < 0 {
		return nil, fmt.Errorf("wire: negative frame length %d", n)
	}
	total := LengthPrefixSize + int(n)
	if len(f.buf) < total {
		return nil, nil
	}
	frame := f.buf[:total:total]
	f.buf = f.buf[total:]
	if len(f.buf) == 0 {
		f.buf = nil
	}
	return frame, nil
}

// Buffered reports how many bytes wait for the rest of their frame.
func (f *Framer) Buffered() int { return len(f.buf) }

// Sizes of encoded values.

// StringSize is the encoded size of a string or byte buffer of n bytes.
func StringSize(n int) int { return 4 + n }

// ACLSize is the encoded size of an ACL list.
func ACLSize(acl []zk.ACL) int {
	n := 4
	for _, a := range acl {
		n += 4 + StringSize(len(a.Scheme)) + StringSize(len(a.ID))
	}
	return n
}

// CreateOpSize is the size of a create op inside a multi, header included.
func CreateOpSize(path string, data []byte, acl []zk.ACL) int {
	return MultiHeaderSize + StringSize(len(path)) + StringSize(len(data)) + ACLSize(acl) + 4
}

// SetDataOpSize is the size of a setData op inside a multi, header included.
func SetDataOpSize(path string, data []byte) int {
	return MultiHeaderSize + StringSize(len(path)) + StringSize(len(data)) + 4
}

// VersionOpSize is the size of a delete or check op inside a multi, header included.
func VersionOpSize(path string) int {
	return MultiHeaderSize + StringSize(len(path)) + 4
}

// MultiSize is the payload size of a multi request whose ops add up to
// opBytes: the request header, the ops and the closing header. The frame
// on the wire is LengthPrefixSize bytes longer.
func MultiSize(opBytes int) int {
	return RequestHeaderSize + opBytes + MultiHeaderSize
}

// SetDataSize is the payload size of a plain setData request.
func SetDataSize(path string, data []byte) int {
	return RequestHeaderSize + StringSize(len(path)) + StringSize(len(data)) + 4
}

// CreateSize is the payload size of a plain create request.
func CreateSize(path string, data []byte, acl []zk.ACL) int {
	return RequestHeaderSize + StringSize(len(path)) + StringSize(len(data)) + ACLSize(acl) + 4
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b) < n {
		r.err = ErrShort
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) int32() int32 {
	p := r.take(4)
	if p == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(p))
}

func (r *reader) int64() int64 {
	p := r.take(8)
	if p == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(p))
}

func (r *reader) bool() bool {
	p := r.take(1)
	return p != nil && p[0] != 0
}

func (r *reader) buffer() []byte {
	n := r.int32()
	if n < 0 || r.err != nil {
		return nil
	}
	return r.take(int(n))
}

func (r *reader) string() string { return string(r.buffer()) }

func (r *reader) acl() {
	n := r.int32()
	for i := int32(0); i < n && r.err == nil; i++ {
		r.int32()
		r.buffer()
		r.buffer()
	}
}

// opBody reads the body of one multi op and returns its path.
func (r *reader) opBody(typ int32) (string, error) {
	path := r.string()
	switch typ {
	case OpCreate, OpCreate2, OpCreateContainer:
		r.buffer()
		r.acl()
		r.int32()
	case OpCreateTTL:
		r.buffer()
		r.acl()
		r.int32()
		r.int64()
	case OpSetData:
		r.buffer()
		r.int32()
	case OpDelete, OpCheck:
		r.int32()
	default:
		return path, fmt.Errorf("wire: unknown multi op type %d", typ)
	}
	return path, r.err
}
