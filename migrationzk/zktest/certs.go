package zktest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// CertAuthority issues certificates for tests: the CA of a server started
// with WithTLS (see Security.CA), or one of a test's own, such as a CA the
// server does not trust. Keys are ECDSA P-256. Nothing is written to disk
// and nothing is reused across CAs.
type CertAuthority struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// CertRequest describes a certificate to issue.
type CertRequest struct {
	// Subject is the certificate's subject. ZooKeeper's x509 provider
	// makes it the client's identity, as Certificate.DN prints it.
	Subject pkix.Name
	// Hosts, DNS names and IP addresses, make a server certificate valid
	// for them. A certificate without hosts is a client certificate.
	Hosts []string
	// Expired makes a certificate whose validity ended an hour ago.
	Expired bool
}

// Certificate is a key and the certificate a CertAuthority issued for it.
type Certificate struct {
	// TLS holds the key and the chain (the certificate, then the CA's),
	// with Leaf set, for tls.Config.Certificates.
	TLS tls.Certificate
	// PEM is the key as unencrypted PKCS#8 ("BEGIN PRIVATE KEY") followed
	// by the chain: the PEM keystore ZooKeeper and Kafka read.
	PEM []byte
}

// DN returns the certificate's subject as ZooKeeper's x509 provider
// names the client (RFC 2253, such as "CN=alice,OU=clients,O=Acme"): the
// id of its ACL entries with scheme "x509".
func (c *Certificate) DN() string { return c.TLS.Leaf.Subject.String() }

// NewCertAuthority returns a new self-signed CA named commonName.
func NewCertAuthority(commonName string) (*CertAuthority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("zktest: CA key: %w", err)
	}
	tmpl, err := certTemplate(pkix.Name{CommonName: commonName}, false)
	if err != nil {
		return nil, err
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("zktest: CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("zktest: CA certificate: %w", err)
	}
	return &CertAuthority{cert: cert, key: key}, nil
}

// certTemplate returns a template valid from an hour ago for a day, or,
// expired, from two days ago until an hour ago.
func certTemplate(subject pkix.Name, expired bool) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("zktest: serial number: %w", err)
	}
	now := time.Now()
	notBefore, notAfter := now.Add(-time.Hour), now.Add(24*time.Hour)
	if expired {
		notBefore, notAfter = now.Add(-48*time.Hour), now.Add(-time.Hour)
	}
	return &x509.Certificate{SerialNumber: serial, Subject: subject, NotBefore: notBefore, NotAfter: notAfter}, nil
}

// Certificate returns the CA's certificate.
func (ca *CertAuthority) Certificate() *x509.Certificate { return ca.cert }

// CertPEM returns the CA's certificate in PEM: a PEM truststore.
func (ca *CertAuthority) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})
}

// Pool returns a pool holding the CA's certificate.
func (ca *CertAuthority) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return pool
}

// ClientConfig returns a TLS client configuration that trusts the CA and
// presents cert, or no certificate when cert is nil. ServerName is left
// empty: zkconn.TLSDialer verifies the host dialled.
func (ca *CertAuthority) ClientConfig(cert *Certificate) *tls.Config {
	config := &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}
	if cert != nil {
		config.Certificates = []tls.Certificate{cert.TLS}
	}
	return config
}

// Issue returns a new key and a certificate for it signed by the CA.
func (ca *CertAuthority) Issue(req CertRequest) (*Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("zktest: key: %w", err)
	}
	tmpl, err := certTemplate(req.Subject, req.Expired)
	if err != nil {
		return nil, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if len(req.Hosts) > 0 {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		addHosts(tmpl, req.Hosts)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, fmt.Errorf("zktest: certificate for %v: %w", req.Subject, err)
	}
	return ca.certificate(der, key)
}

func addHosts(tmpl *x509.Certificate, hosts []string) {
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
}

// certificate assembles the Certificate of der, issued by ca for key.
func (ca *CertAuthority) certificate(der []byte, key *ecdsa.PrivateKey) (*Certificate, error) {
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("zktest: certificate: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("zktest: key: %w", err)
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	out = append(out, ca.CertPEM()...)
	return &Certificate{
		TLS: tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key, Leaf: leaf},
		PEM: out,
	}, nil
}
