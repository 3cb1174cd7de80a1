package wire

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

// frame builds a request frame from a header and raw body.
func frame(xid, op int32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(op))
	return append(b, body...)
}

func str(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func i32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }

func multiHeader(b []byte, typ int32, done bool) []byte {
	b = i32(b, typ)
	if done {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return i32(b, -1)
}

func TestParseRequestSetData(t *testing.T) {
	body := i32(str(str(nil, "/migration"), "data"), 7)
	f := frame(42, OpSetData, body)
	req, err := ParseRequest(f[LengthPrefixSize:])
	if err != nil {
		t.Fatal(err)
	}
	if req.Xid != 42 || req.Opcode != OpSetData || len(req.Ops) != 1 || req.Ops[0] != (PathOp{OpSetData, "/migration"}) {
		t.Fatalf("got %+v", req)
	}
	if paths := req.Paths(); len(paths) != 1 || paths[0] != "/migration" {
		t.Fatalf("paths %v", paths)
	}
	if got, want := len(f)-LengthPrefixSize, SetDataSize("/migration", []byte("data")); got != want {
		t.Fatalf("SetDataSize = %d, frame payload is %d", want, got)
	}
}

func TestParseRequestMulti(t *testing.T) {
	acl := zk.WorldACL(zk.PermAll)
	var body []byte
	body = multiHeader(body, OpCheck, false)
	body = i32(str(body, "/controller_epoch"), 3)
	body = multiHeader(body, OpCreate, false)
	body = str(body, "/brokers/topics/t")
	body = str(body, "{}")
	body = i32(body, int32(len(acl)))
	for _, a := range acl {
		body = str(str(i32(body, a.Perms), a.Scheme), a.ID)
	}
	body = i32(body, 0)
	body = multiHeader(body, OpDelete, false)
	body = i32(str(body, "/gone"), -1)
	body = multiHeader(body, OpSetData, false)
	body = i32(str(str(body, "/migration"), "x"), 5)
	body = multiHeader(body, -1, true)
	f := frame(1, OpMulti, body)

	req, err := ParseRequest(f[LengthPrefixSize:])
	if err != nil {
		t.Fatal(err)
	}
	want := []PathOp{{OpCheck, "/controller_epoch"}, {OpCreate, "/brokers/topics/t"}, {OpDelete, "/gone"}, {OpSetData, "/migration"}}
	if req.Opcode != OpMulti || len(req.Ops) != len(want) {
		t.Fatalf("opcode %d, ops %v, want multi with %v", req.Opcode, req.Ops, want)
	}
	for i := range want {
		if req.Ops[i] != want[i] {
			t.Fatalf("ops %v, want %v", req.Ops, want)
		}
	}
	if paths := req.Paths(); len(paths) != len(want) || paths[3] != "/migration" {
		t.Fatalf("paths %v", paths)
	}
	ops := VersionOpSize("/controller_epoch") + CreateOpSize("/brokers/topics/t", []byte("{}"), acl) +
		VersionOpSize("/gone") + SetDataOpSize("/migration", []byte("x"))
	if got, want := MultiSize(ops), len(f)-LengthPrefixSize; got != want {
		t.Fatalf("MultiSize = %d, frame payload is %d", got, want)
	}
}

func TestParseRequestNoPath(t *testing.T) {
	f := frame(XidPing, OpPing, nil)
	req, err := ParseRequest(f[LengthPrefixSize:])
	if err != nil || req.Opcode != OpPing || len(req.Ops) != 0 || len(req.Paths()) != 0 {
		t.Fatalf("got %+v, %v", req, err)
	}
}

func TestParseRequestShort(t *testing.T) {
	f := frame(1, OpSetData, str(nil, "/truncated"))
	if _, err := ParseRequest(f[LengthPrefixSize : len(f)-3]); !errors.Is(err, ErrShort) {
		t.Fatalf("err = %v, want ErrShort", err)
	}
	if _, err := ParseReplyHeader([]byte{1, 2}); !errors.Is(err, ErrShort) {
		t.Fatalf("err = %v, want ErrShort", err)
	}
}

func TestFramer(t *testing.T) {
	a := frame(1, OpPing, nil)
	b := frame(2, OpSync, str(nil, "/"))
	stream := append(append([]byte(nil), a...), b...)
	var f Framer
	var got [][]byte
	for _, c := range stream { // one byte at a time
		f.Write([]byte{c})
		for {
			fr, err := f.Next()
			if err != nil {
				t.Fatal(err)
			}
			if fr == nil {
				break
			}
			got = append(got, append([]byte(nil), fr...))
		}
	}
	if len(got) != 2 || string(got[0]) != string(a) || string(got[1]) != string(b) || f.Buffered() != 0 {
		t.Fatalf("frames %x", got)
	}
	f.Write([]byte{0xff, 0xff, 0xff, 0xff})
	if _, err := f.Next(); err == nil {
		t.Fatal("negative length accepted")
	}
}

func TestConnectRoundTrip(t *testing.T) {
	req := ConnectRequest{TimeoutMs: 4000, SessionID: 0x1234, Passwd: []byte("0123456789abcdef")}
	b := req.Append(nil)
	if int(binary.BigEndian.Uint32(b)) != len(b)-4 {
		t.Fatalf("length prefix %d for %d bytes", binary.BigEndian.Uint32(b), len(b)-4)
	}
	// A server reply has the same leading fields minus lastZxidSeen.
	var reply []byte
	reply = i32(reply, 0)
	reply = i32(reply, 4000)
	reply = binary.BigEndian.AppendUint64(reply, 0x1234)
	reply = str(reply, "0123456789abcdef")
	got, err := ParseConnectResponse(reply)
	if err != nil || got.SessionID != 0x1234 || string(got.Passwd) != "0123456789abcdef" || got.TimeoutMs != 4000 {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add(frame(1, OpSetData, i32(str(str(nil, "/a"), "b"), 0))[4:])
	f.Add(frame(1, OpMulti, multiHeader(i32(str(multiHeader(nil, OpCheck, false), "/a"), 0), -1, true))[4:])
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 14, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, payload []byte) {
		_, _ = ParseRequest(payload) // must not panic
		_, _ = ParseReplyHeader(payload)
		_, _ = ParseConnectResponse(payload)
	})
}

func TestAppendSetAuth(t *testing.T) {
	var f Framer
	f.Write(AppendSetAuth(nil, XidAuth, "digest", []byte("alice:secret")))
	frame, err := f.Next()
	if err != nil || frame == nil || f.Buffered() != 0 {
		t.Fatalf("frame %v, %v, %d left", frame, err, f.Buffered())
	}
	req, err := ParseRequest(frame[LengthPrefixSize:])
	if err != nil || req.Xid != XidAuth || req.Opcode != OpSetAuth || len(req.Ops) != 0 {
		t.Fatalf("request %+v, %v", req, err)
	}
	if want := "\x00\x00\x00\x06digest\x00\x00\x00\x0calice:secret"; !strings.HasSuffix(string(frame), want) {
		t.Fatalf("frame %q does not end with %q", frame, want)
	}
}
