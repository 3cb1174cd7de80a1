package zktls

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"
)

// The store types.
const (
	typePEM    = "PEM"
	typePKCS12 = "PKCS12"
	typeJKS    = "JKS"
)

// store is a keystore or truststore as the properties describe it.
type store struct {
	kind                              string // "keystore" or "truststore"
	locationKey, passwordKey, typeKey string
	location, password                string
	typ                               string // as given, may be empty
}

func newStore(kind, locationKey, passwordKey, typeKey string, props map[string]string) store {
	return store{
		kind: kind, locationKey: locationKey, typeKey: typeKey, passwordKey: passwordKey,
		location: props[locationKey], password: props[passwordKey], typ: props[typeKey],
	}
}

// fail returns an *Error naming the store's location key and file.
func (s store) fail(err error) error {
	return &Error{Key: s.locationKey, Store: s.location, Err: err}
}

// fileType returns the store's type: as given, in any case, or by the
// file's extension as ZooKeeper's client infers it.
func (s store) fileType() (string, error) {
	if s.typ != "" {
		switch t := strings.ToUpper(s.typ); t {
		case typePEM, typePKCS12, typeJKS:
			return t, nil
		case "BCFKS":
			return "", &Error{Key: s.typeKey, Err: fmt.Errorf("%w: BCFKS stores; convert it to PKCS12, JKS or PEM", ErrUnsupported)}
		}
		return "", &Error{Key: s.typeKey, Err: fmt.Errorf("%w %q: want PEM, PKCS12 or JKS", ErrInvalidValue, s.typ)}
	}
	switch strings.ToLower(filepath.Ext(s.location)) {
	case ".pem":
		return typePEM, nil
	case ".p12":
		return typePKCS12, nil
	case ".jks":
		return typeJKS, nil
	}
	return "", &Error{Key: s.typeKey, Err: fmt.Errorf("%w: unset, and %s has no extension to tell the type by (.pem, .p12, .jks): set it", ErrInvalidValue, s.location)}
}

// read returns the store's type and contents.
func (s store) read() (string, []byte, error) {
	typ, err := s.fileType()
	if err != nil {
		return "", nil, err
	}
	data, err := os.ReadFile(s.location)
	if err != nil {
		return "", nil, s.fail(fmt.Errorf("cannot read the %s: %w", s.kind, err))
	}
	return typ, data, nil
}

// loadKeyStore returns the client's key and certificate chain.
func (s store) loadKeyStore() (tls.Certificate, error) {
	typ, data, err := s.read()
	if err != nil {
		return tls.Certificate{}, err
	}
	var cert tls.Certificate
	switch typ {
	case typePEM:
		cert, err = pemKeyStore(data)
	case typePKCS12:
		cert, err = pkcs12KeyStore(data, s.password)
	case typeJKS:
		cert, err = jksKeyStore(data, s.password)
	}
	if err == nil {
		err = checkKeyPair(cert)
	}
	if err != nil {
		return tls.Certificate{}, s.fail(fmt.Errorf("%s %s: %w", typ, s.kind, s.explain(err, typ, data)))
	}
	return cert, nil
}

// loadTrustStore returns the CAs of the truststore.
func (s store) loadTrustStore() (*x509.CertPool, error) {
	typ, data, err := s.read()
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	switch typ {
	case typePEM:
		certs, err = pemCertificates(data)
	case typePKCS12:
		certs, err = pkcs12.DecodeTrustStore(data, s.password)
	case typeJKS:
		certs, err = jksTrustStore(data, s.password)
	}
	if err == nil && len(certs) == 0 {
		err = errors.New("no certificates")
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("%s %s: %w", typ, s.kind, s.explain(err, typ, data)))
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// explain turns the libraries' password errors into ErrWrongPassword,
// naming the password's key, and marks the others ErrMalformedStore: a
// store of another type than typ, read from data, is named with the key to
// set, and the decoders' ASN.1 internals are left out.
func (s store) explain(err error, typ string, data []byte) error {
	switch {
	case errors.Is(err, ErrUnsupported):
		return err
	case errors.Is(err, pkcs12.ErrIncorrectPassword) || isJKSDigestMismatch(err):
		return fmt.Errorf("%w (%s)", ErrWrongPassword, s.passwordKey)
	}
	if actual := sniffType(data); actual != "" && actual != typ {
		return fmt.Errorf("%w: the file is a %s store: set %s=%s", ErrMalformedStore, actual, s.typeKey, actual)
	}
	if strings.Contains(err.Error(), "asn1:") {
		return fmt.Errorf("%w: not DER-encoded %s data", ErrMalformedStore, typ)
	}
	return fmt.Errorf("%w: %w", ErrMalformedStore, err)
}

// sniffType returns the type a store file's first bytes show: JKS's magic
// number, PEM's armour, or a DER sequence (PKCS12); "" when none.
func sniffType(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xfe, 0xed, 0xfe, 0xed}):
		return typeJKS
	case bytes.Contains(data, []byte("-----BEGIN ")):
		return typePEM
	case len(data) > 0 && data[0] == 0x30:
		return typePKCS12
	}
	return ""
}

// checkKeyPair fails unless the key is the one of the chain's first
// certificate.
func checkKeyPair(cert tls.Certificate) error {
	signer, ok := cert.PrivateKey.(crypto.Signer)
	if !ok {
		return fmt.Errorf("%w: a private key of type %T", ErrUnsupported, cert.PrivateKey)
	}
	pub, ok := signer.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || cert.Leaf == nil || !pub.Equal(cert.Leaf.PublicKey) {
		return errors.New("the private key does not match the first certificate of the chain")
	}
	return nil
}

// pemKeyStore reads an unencrypted PKCS#8 key and its certificate chain.
func pemKeyStore(data []byte) (tls.Certificate, error) {
	var keyPEM, certPEM []byte
	for rest := data; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		switch block.Type {
		case "PRIVATE KEY":
			keyPEM = append(keyPEM, pem.EncodeToMemory(block)...)
		case "CERTIFICATE":
			certPEM = append(certPEM, pem.EncodeToMemory(block)...)
		case "ENCRYPTED PRIVATE KEY":
			return tls.Certificate{}, fmt.Errorf("%w: an encrypted key; store it unencrypted (BEGIN PRIVATE KEY)", ErrUnsupported)
		case "RSA PRIVATE KEY", "EC PRIVATE KEY":
			return tls.Certificate{}, fmt.Errorf("a key in PKCS#1 or SEC1 form (BEGIN %s): Kafka's PEM keystores hold PKCS#8 keys (BEGIN PRIVATE KEY)", block.Type)
		}
	}
	if keyPEM == nil || certPEM == nil {
		return tls.Certificate{}, errors.New("want a private key (BEGIN PRIVATE KEY) and its certificate chain (BEGIN CERTIFICATE)")
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// pemCertificates reads every certificate of data.
func pemCertificates(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for rest := data; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			return certs, nil
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
}

// pkcs12KeyStore reads the key and chain of a PKCS#12 keystore.
func pkcs12KeyStore(data []byte, password string) (tls.Certificate, error) {
	key, leaf, cas, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return tls.Certificate{}, err
	}
	chain := [][]byte{leaf.Raw}
	for _, ca := range cas {
		chain = append(chain, ca.Raw)
	}
	return tls.Certificate{Certificate: chain, PrivateKey: key, Leaf: leaf}, nil
}

// loadJKS opens a JKS store, checking its integrity with password.
func loadJKS(data []byte, password string) (keystore.KeyStore, error) {
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(password)); err != nil {
		return keystore.KeyStore{}, err
	}
	return ks, nil
}

// isJKSDigestMismatch reports keystore-go's error for a JKS store whose
// integrity check fails: a wrong password.
func isJKSDigestMismatch(err error) bool {
	return err != nil && strings.Contains(err.Error(), "got invalid digest")
}

// jksKeyStore reads the one private key entry of a JKS keystore, whose key
// is protected by the store's password.
func jksKeyStore(data []byte, password string) (tls.Certificate, error) {
	ks, err := loadJKS(data, password)
	if err != nil {
		return tls.Certificate{}, err
	}
	var aliases []string
	for _, a := range ks.Aliases() {
		if ks.IsPrivateKeyEntry(a) {
			aliases = append(aliases, a)
		}
	}
	if len(aliases) != 1 {
		return tls.Certificate{}, fmt.Errorf("want exactly one private key entry, found %d", len(aliases))
	}
	entry, err := ks.GetPrivateKeyEntry(aliases[0], []byte(password))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("entry %q: %w", aliases[0], err)
	}
	key, err := x509.ParsePKCS8PrivateKey(entry.PrivateKey)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("entry %q: %w", aliases[0], err)
	}
	cert := tls.Certificate{PrivateKey: key}
	for _, c := range entry.CertificateChain {
		cert.Certificate = append(cert.Certificate, c.Content)
	}
	if len(cert.Certificate) == 0 {
		return tls.Certificate{}, fmt.Errorf("entry %q has no certificate", aliases[0])
	}
	cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0])
	return cert, err
}

// jksTrustStore reads the trusted certificate entries of a JKS store.
func jksTrustStore(data []byte, password string) ([]*x509.Certificate, error) {
	ks, err := loadJKS(data, password)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for _, a := range ks.Aliases() {
		if !ks.IsTrustedCertificateEntry(a) {
			continue
		}
		entry, err := ks.GetTrustedCertificateEntry(a)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", a, err)
		}
		c, err := x509.ParseCertificate(entry.Certificate.Content)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", a, err)
		}
		certs = append(certs, c)
	}
	return certs, nil
}
