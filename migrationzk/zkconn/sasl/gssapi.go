package sasl

import (
	"bytes"
	"encoding/asn1"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// The GSS-API Kerberos V5 framing (RFC 1964, RFC 4121).
var krb5MechOID = asn1.ObjectIdentifier{1, 2, 840, 113554, 1, 2, 2}

var (
	tokenIDAPReq = []byte{0x01, 0x00}
	tokenIDAPRep = []byte{0x02, 0x00}
	tokenIDError = []byte{0x03, 0x00}
)

// GSS context flags carried in the authenticator's checksum (RFC 4121
// 4.1.1.1).
const (
	gssFlagMutual = 0x02
	gssFlagConf   = 0x10
	gssFlagInteg  = 0x20
)

// Wrap token flags (RFC 4121 4.2.2).
const (
	wrapSentByAcceptor = 0x01
	wrapSealed         = 0x02
	wrapAcceptorSubkey = 0x04
)

// SASL GSSAPI security layers (RFC 4752 3.3): only "none" is spoken;
// ZooKeeper's server offers nothing else.
const saslLayerNone = 0x01

// gssapiStage is what the exchange expects from the server next.
type gssapiStage int

const (
	awaitAPRep gssapiStage = iota // mutual authentication only
	awaitLayers
	awaitEnd
	finished
)

// gssapiExchange is one GSSAPI SASL exchange: the AP-REQ, with mutual
// authentication the server's AP-REP, the security layer the server
// offers and the client's choice, then the server's empty final reply.
type gssapiExchange struct {
	server string
	client clientPrincipal
	key    types.EncryptionKey // the ticket's session key, or the acceptor's subkey
	subkey bool                // key is the acceptor's subkey
	seq    uint64              // the authenticator's sequence number
	ctime  time.Time
	cusec  int
	stage  gssapiStage
}

// newGSSAPIExchange makes the AP-REQ for st, with a new authenticator.
func newGSSAPIExchange(server string, st *ticket, cp clientPrincipal, mutual bool) (*gssapiExchange, []byte, error) {
	auth, err := types.NewAuthenticator(cp.realm, cp.name)
	if err != nil {
		return nil, nil, err
	}
	gssFlags := uint32(gssFlagInteg | gssFlagConf)
	if mutual {
		gssFlags |= gssFlagMutual
	}
	auth.Cksum = types.Checksum{CksumType: chksumtype.GSSAPI, Checksum: gssChecksum(gssFlags)}
	req, err := messages.NewAPReq(st.ticket, st.key, auth)
	if err != nil {
		return nil, nil, err
	}
	if mutual {
		types.SetFlag(&req.APOptions, flags.APOptionMutualRequired)
	}
	b, err := req.Marshal()
	if err != nil {
		return nil, nil, err
	}
	ex := &gssapiExchange{
		server: server, client: cp, key: st.key, seq: uint64(auth.SeqNumber),
		ctime: auth.CTime, cusec: auth.Cusec, stage: awaitLayers,
	}
	if mutual {
		ex.stage = awaitAPRep
	}
	return ex, gssToken(tokenIDAPReq, b), nil
}

// gssChecksum is the authenticator checksum of RFC 4121 4.1.1: no
// channel bindings, and the context flags.
func gssChecksum(gssFlags uint32) []byte {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint32(b[0:4], 16)
	binary.LittleEndian.PutUint32(b[20:24], gssFlags)
	return b
}

// gssToken frames a Kerberos message as a GSS-API token: application tag
// 0, the mechanism's OID, the token id, the message.
func gssToken(id, msg []byte) []byte {
	oid, _ := asn1.Marshal(krb5MechOID) // a constant OID always marshals
	inner := append(append(oid, id...), msg...)
	return asn1tools.AddASNAppTag(inner, 0)
}

// parseGSSToken returns the token id and message of a GSS-API token of
// the Kerberos mechanism.
func parseGSSToken(b []byte) (id, msg []byte, err error) {
	var raw asn1.RawValue
	rest, err := asn1.Unmarshal(b, &raw)
	if err != nil || len(rest) > 0 || raw.Class != asn1.ClassApplication || raw.Tag != 0 {
		return nil, nil, errors.New("not a GSS-API token")
	}
	var oid asn1.ObjectIdentifier
	body, err := asn1.Unmarshal(raw.Bytes, &oid)
	if err != nil || !oid.Equal(krb5MechOID) || len(body) < 2 {
		return nil, nil, fmt.Errorf("not a Kerberos V5 GSS-API token (mechanism %v)", oid)
	}
	return body[:2], body[2:], nil
}

// Challenge takes the server's reply to the last request.
func (ex *gssapiExchange) Challenge(challenge []byte) (bool, []byte, error) {
	switch ex.stage {
	case awaitAPRep:
		if err := ex.checkAPRep(challenge); err != nil {
			return false, nil, ex.invalid(err)
		}
		ex.stage = awaitLayers
		return false, []byte{}, nil
	case awaitLayers:
		resp, err := ex.chooseLayer(challenge)
		if err != nil {
			return false, nil, ex.invalid(err)
		}
		ex.stage = awaitEnd
		return false, resp, nil
	case awaitEnd:
		if challenge != nil {
			return false, nil, ex.invalid(fmt.Errorf("a %d-byte token where the server's final reply carries none", len(challenge)))
		}
		ex.stage = finished
		return true, nil, nil
	}
	return false, nil, ex.invalid(errors.New("a reply after the exchange ended"))
}

func (ex *gssapiExchange) invalid(err error) *Error {
	return &Error{Mechanism: gssapiName, Server: ex.server, Failure: ServerInvalid, Err: err}
}

// checkAPRep checks that the server's AP-REP answers our authenticator,
// which only a holder of the service key can do, and takes its subkey.
func (ex *gssapiExchange) checkAPRep(token []byte) error {
	if token == nil {
		return errors.New("no token where the server's AP-REP was due")
	}
	id, msg, err := parseGSSToken(token)
	if err != nil {
		return err
	}
	if bytes.Equal(id, tokenIDError) {
		var ke messages.KRBError
		if err := ke.Unmarshal(msg); err == nil {
			return fmt.Errorf("the server sent a Kerberos error: %w", ke)
		}
		return errors.New("the server sent a Kerberos error")
	}
	if !bytes.Equal(id, tokenIDAPRep) {
		return fmt.Errorf("token id %x where an AP-REP was due", id)
	}
	var rep messages.APRep
	if err := rep.Unmarshal(msg); err != nil {
		return err
	}
	plain, err := crypto.DecryptEncPart(rep.EncPart, ex.key, keyusage.AP_REP_ENCPART)
	if err != nil {
		return fmt.Errorf("AP-REP not sealed with the session key: %w", err)
	}
	var part messages.EncAPRepPart
	if err := part.Unmarshal(plain); err != nil {
		return err
	}
	if !part.CTime.Equal(ex.ctime.Truncate(time.Second)) || part.Cusec != ex.cusec {
		return errors.New("AP-REP does not answer this authenticator")
	}
	if len(part.Subkey.KeyValue) > 0 {
		ex.key, ex.subkey = part.Subkey, true
	}
	return nil
}

// chooseLayer checks the server's wrapped security layer offer and
// answers with a wrapped choice of no security layer, naming the client
// principal as authorization id as ZooKeeper's Java client does.
func (ex *gssapiExchange) chooseLayer(token []byte) ([]byte, error) {
	if token == nil {
		return nil, errors.New("no token where the server's security layer offer was due: not authenticated")
	}
	offer, err := ex.unwrap(token)
	if err != nil {
		return nil, err
	}
	if len(offer) != 4 {
		return nil, fmt.Errorf("security layer offer of %d bytes, not 4", len(offer))
	}
	if offer[0]&saslLayerNone == 0 {
		return nil, fmt.Errorf("the server offers security layers %#x, without \"none\"", offer[0])
	}
	payload := append([]byte{saslLayerNone, 0, 0, 0}, ex.client.String()...)
	return ex.wrap(payload)
}

// unwrap verifies an acceptor's RFC 4121 wrap token, integrity only, and
// returns its payload.
func (ex *gssapiExchange) unwrap(token []byte) ([]byte, error) {
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(unrotate(token), true); err != nil {
		return nil, fmt.Errorf("security layer offer: %w", err)
	}
	if wt.Flags&wrapSealed != 0 {
		return nil, errors.New("security layer offer is sealed; ZooKeeper's server never seals it")
	}
	if (wt.Flags&wrapAcceptorSubkey != 0) != ex.subkey {
		return nil, errors.New("security layer offer's acceptor subkey flag does not match the AP-REP")
	}
	if ok, err := wt.Verify(ex.key, keyusage.GSSAPI_ACCEPTOR_SEAL); !ok {
		return nil, fmt.Errorf("security layer offer: %w", err)
	}
	return wt.Payload, nil
}

// unrotate undoes a wrap token's right rotation count (RFC 4121 4.2.5),
// which a sender may apply to everything after the header.
func unrotate(token []byte) []byte {
	if len(token) < gssapi.HdrLen {
		return token
	}
	rrc := int(binary.BigEndian.Uint16(token[6:8]))
	body := token[gssapi.HdrLen:]
	if rrc == 0 || len(body) == 0 {
		return token
	}
	rrc %= len(body)
	out := append([]byte(nil), token[:gssapi.HdrLen]...)
	binary.BigEndian.PutUint16(out[6:8], 0)
	out = append(out, body[rrc:]...)
	return append(out, body[:rrc]...)
}

// wrap makes the initiator's integrity-only wrap token for payload, with
// the authenticator's sequence number.
func (ex *gssapiExchange) wrap(payload []byte) ([]byte, error) {
	et, err := crypto.GetEtype(ex.key.KeyType)
	if err != nil {
		return nil, err
	}
	wt := gssapi.WrapToken{EC: uint16(et.GetHMACBitLength() / 8), SndSeqNum: ex.seq, Payload: payload}
	if ex.subkey {
		wt.Flags = wrapAcceptorSubkey
	}
	if err := wt.SetCheckSum(ex.key, keyusage.GSSAPI_INITIATOR_SEAL); err != nil {
		return nil, err
	}
	return wt.Marshal()
}
