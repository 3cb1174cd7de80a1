package sasl

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/msgtype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"

	"github.com/kraftmigration/zkwriter/internal/testkit/krb5kdc"
)

// testRealm is a KDC with the principals kafka and zookeeper/localhost.
type testRealm struct {
	kdc      *krb5kdc.KDC
	clientKT string // kafka's keytab
	serverKT *keytab.Keytab
}

func startTestRealm(t *testing.T) *testRealm {
	t.Helper()
	inst, err := krb5kdc.FindInstall()
	if errors.Is(err, krb5kdc.ErrNoInstall) && os.Getenv("ZKWRITER_REQUIRE_ZK") != "1" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kdc, err := krb5kdc.Start(ctx, inst, krb5kdc.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kdc.Stop() })
	r := &testRealm{kdc: kdc, clientKT: r0(t, kdc, "kafka")}
	if r.serverKT, err = keytab.Load(r0(t, kdc, "zookeeper/localhost")); err != nil {
		t.Fatal(err)
	}
	return r
}

// r0 adds principal name and returns its keytab's path.
func r0(t *testing.T, kdc *krb5kdc.KDC, name string, maxLife ...time.Duration) string {
	t.Helper()
	p := krb5kdc.Principal{Name: name}
	if len(maxLife) > 0 {
		p.MaxLife = maxLife[0]
	}
	ctx := context.Background()
	if err := kdc.AddPrincipal(ctx, p); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(kdc.Dir(), filepath.Base(name)+".keytab")
	if err := kdc.WriteKeytab(ctx, path, name); err != nil {
		t.Fatal(err)
	}
	return path
}

func (r *testRealm) config() KerberosConfig {
	return KerberosConfig{Principal: "kafka@EXAMPLE.TEST", KeyTab: r.clientKT, Krb5Conf: r.kdc.Krb5Conf(), CanonicalizeHostname: true}
}

// acceptor is the server's side of one GSSAPI exchange, as a ZooKeeper
// server's JDK plays it.
type acceptor struct {
	t    *testing.T
	req  messages.APReq
	key  types.EncryptionKey
	seq  uint64
	auth types.Authenticator
}

// accept verifies the client's initial token with the server's keytab.
func (r *testRealm) accept(t *testing.T, token []byte) *acceptor {
	t.Helper()
	id, msg, err := parseGSSToken(token)
	if err != nil || !bytes.Equal(id, tokenIDAPReq) {
		t.Fatalf("initial token: id %x, %v", id, err)
	}
	a := &acceptor{t: t}
	if err := a.req.Unmarshal(msg); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.req.Verify(r.serverKT, 5*time.Minute, types.HostAddress{}, nil); !ok {
		t.Fatalf("the acceptor refuses the AP-REQ: %v", err)
	}
	a.auth = a.req.Authenticator
	a.key, a.seq = a.req.Ticket.DecryptedEncPart.Key, uint64(a.auth.SeqNumber)
	return a
}

// offer is the acceptor's wrapped security layer offer with payload.
func (a *acceptor) offer(payload []byte) []byte {
	return a.offerFlagged(wrapSentByAcceptor, payload)
}

// offerFlagged is offer with the wrap token's flags, checksummed with
// them.
func (a *acceptor) offerFlagged(flags byte, payload []byte) []byte {
	wt := gssapi.WrapToken{Flags: flags, EC: 12, SndSeqNum: a.seq, Payload: payload}
	if err := wt.SetCheckSum(a.key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		a.t.Fatal(err)
	}
	b, err := wt.Marshal()
	if err != nil {
		a.t.Fatal(err)
	}
	return b
}

// apRep is the acceptor's AP-REP answering the authenticator, its cusec
// shifted by skew.
func (a *acceptor) apRep(skew int) []byte {
	part := messages.EncAPRepPart{CTime: a.auth.CTime, Cusec: a.auth.Cusec + skew, SequenceNumber: 7}
	plain, err := asn1.MarshalWithParams(part, "application,explicit,tag:27")
	if err != nil {
		a.t.Fatal(err)
	}
	enc, err := crypto.GetEncryptedData(plain, a.key, keyusage.AP_REP_ENCPART, 0)
	if err != nil {
		a.t.Fatal(err)
	}
	rep := messages.APRep{PVNO: 5, MsgType: msgtype.KRB_AP_REP, EncPart: enc}
	b, err := asn1.MarshalWithParams(rep, "application,explicit,tag:15")
	if err != nil {
		a.t.Fatal(err)
	}
	return gssToken(tokenIDAPRep, b)
}

// checkChoice verifies the client's wrapped choice of no security layer.
func (a *acceptor) checkChoice(token []byte, authzid string) {
	a.t.Helper()
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(token, false); err != nil {
		a.t.Fatal(err)
	}
	if ok, err := wt.Verify(a.key, keyusage.GSSAPI_INITIATOR_SEAL); !ok {
		a.t.Fatalf("the client's wrap token does not verify: %v", err)
	}
	if wt.SndSeqNum != a.seq {
		a.t.Errorf("the client's wrap token has sequence number %d, its authenticator %d", wt.SndSeqNum, a.seq)
	}
	want := append([]byte{1, 0, 0, 0}, authzid...)
	if !bytes.Equal(wt.Payload, want) {
		a.t.Errorf("the client chose %q, want %q", wt.Payload, want)
	}
}

func startExchange(t *testing.T, m *kerberosMechanism) (Exchange, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ex, token, err := m.Authenticate(ctx, "127.0.0.1:2181")
	if err != nil {
		t.Fatal(err)
	}
	return ex, token
}

// Without mutual authentication: AP-REQ, the offer, the wrapped choice,
// then a null final token, as ZooKeeper's Java client does.
func TestGSSAPIExchangeWithoutMutualAuth(t *testing.T) {
	r := startTestRealm(t)
	m, err := newKerberos(r.config(), systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	ex, token := startExchange(t, m)
	a := r.accept(t, token)
	if types.IsFlagSet(&a.req.APOptions, flags.APOptionMutualRequired) {
		t.Error("mutual authentication asked for")
	}
	if got := a.auth.Cksum.Checksum; len(got) != 24 || got[20] != gssFlagInteg|gssFlagConf {
		t.Errorf("authenticator checksum %x", got)
	}
	done, resp, err := ex.Challenge(a.offer([]byte{1, 1, 0, 0}))
	if err != nil || done {
		t.Fatalf("offer: done %v, %v", done, err)
	}
	a.checkChoice(resp, "kafka@EXAMPLE.TEST")
	if done, resp, err = ex.Challenge(nil); err != nil || !done || resp != nil {
		t.Fatalf("final: %x, done %v, %v", resp, done, err)
	}
	// The next connection sends a new authenticator, never the same
	// AP-REQ: the server's replay cache would refuse it.
	_, again := startExchange(t, m)
	b := r.accept(t, again)
	if bytes.Equal(again, token) || b.seq == a.seq || (b.auth.CTime.Equal(a.auth.CTime) && b.auth.Cusec == a.auth.Cusec) {
		t.Errorf("the second AP-REQ repeats the first's authenticator")
	}
}

// With mutual authentication the AP-REP must answer the authenticator.
func TestGSSAPIExchangeWithMutualAuth(t *testing.T) {
	r := startTestRealm(t)
	cfg := r.config()
	cfg.MutualAuth = true
	m, err := newKerberos(cfg, systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	ex, token := startExchange(t, m)
	a := r.accept(t, token)
	if !types.IsFlagSet(&a.req.APOptions, flags.APOptionMutualRequired) {
		t.Error("mutual authentication not asked for")
	}
	done, resp, err := ex.Challenge(a.apRep(0))
	if err != nil || done || resp == nil || len(resp) != 0 {
		t.Fatalf("AP-REP: %x, done %v, %v", resp, done, err)
	}
	_, resp, err = ex.Challenge(a.offer([]byte{1, 1, 0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	a.checkChoice(resp, "kafka@EXAMPLE.TEST")

	ex, token = startExchange(t, m)
	a = r.accept(t, token)
	_, _, err = ex.Challenge(a.apRep(1))
	wantFailure(t, err, ServerInvalid)
}

// The client refuses a server whose replies fail its checks.
func TestGSSAPIExchangeRefusesBadReplies(t *testing.T) {
	r := startTestRealm(t)
	m, err := newKerberos(r.config(), systemResolver{})
	if err != nil {
		t.Fatal(err)
	}
	tampered := func(a *acceptor) []byte {
		b := a.offer([]byte{1, 1, 0, 0})
		b[len(b)-1] ^= 1
		return b
	}
	cases := map[string]func(a *acceptor) []byte{
		"null offer":        func(*acceptor) []byte { return nil },
		"tampered offer":    tampered,
		"no layer none":     func(a *acceptor) []byte { return a.offer([]byte{2, 1, 0, 0}) },
		"short offer":       func(a *acceptor) []byte { return a.offer([]byte{1}) },
		"initiator's flags": func(a *acceptor) []byte { return a.offerFlagged(0, []byte{1, 1, 0, 0}) },
		"wrong session key": func(a *acceptor) []byte {
			a.key.KeyValue = make([]byte, len(a.key.KeyValue))
			return a.offer([]byte{1, 1, 0, 0})
		},
		"sealed offer": func(a *acceptor) []byte { return a.offerFlagged(wrapSentByAcceptor|wrapSealed, []byte{1, 1, 0, 0}) },
		"acceptor subkey flag": func(a *acceptor) []byte {
			return a.offerFlagged(wrapSentByAcceptor|wrapAcceptorSubkey, []byte{1, 1, 0, 0})
		},
		"flag changed": func(a *acceptor) []byte { b := a.offer([]byte{1, 1, 0, 0}); b[2] |= wrapSealed; return b },
	}
	for name, reply := range cases {
		t.Run(name, func(t *testing.T) {
			ex, token := startExchange(t, m)
			_, _, err := ex.Challenge(reply(r.accept(t, token)))
			wantFailure(t, err, ServerInvalid)
		})
	}
	ex, token := startExchange(t, m)
	if _, _, err := ex.Challenge(r.accept(t, token).offer([]byte{1, 1, 0, 0})); err != nil {
		t.Fatal(err)
	}
	_, _, err = ex.Challenge([]byte{1})
	wantFailure(t, err, ServerInvalid)
}

// A rotated offer (RRC) is read as the unrotated one.
func TestUnrotate(t *testing.T) {
	hdr := []byte{5, 4, 1, 0xff, 0, 12, 0, 3, 0, 0, 0, 0, 0, 0, 0, 9}
	plain := append(append([]byte(nil), hdr...), 'a', 'b', 'c', 'd', 'e')
	plain[6], plain[7] = 0, 0
	rotated := append(append([]byte(nil), hdr...), 'c', 'd', 'e', 'a', 'b')
	if got := unrotate(rotated); !bytes.Equal(got, plain) {
		t.Fatalf("unrotate: %x, want %x", got, plain)
	}
}

func wantFailure(t *testing.T, err error, want Failure) {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want a *Error", err, err)
	}
	if se.Failure != want || se.Mechanism != "GSSAPI" {
		t.Fatalf("%v: failure %v, mechanism %q; want %v", err, se.Failure, se.Mechanism, want)
	}
}
