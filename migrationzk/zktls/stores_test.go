package zktls_test

import (
	"bytes"
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
)

// stores writes keystores and truststores for tests into a temporary
// directory.
type stores struct {
	t   *testing.T
	dir string
}

func newStores(t *testing.T) *stores { return &stores{t: t, dir: t.TempDir()} }

func (s *stores) write(name string, data []byte) string {
	s.t.Helper()
	path := filepath.Join(s.dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		s.t.Fatal(err)
	}
	return path
}

// properties writes a properties file of lines.
func (s *stores) properties(lines ...string) string {
	s.t.Helper()
	return s.write("zk-tls.properties", []byte(strings.Join(lines, "\n")+"\n"))
}

// pkcs12KeyStore writes cert as a PKCS#12 keystore made by Go.
func (s *stores) pkcs12KeyStore(name string, cert *zktest.Certificate, password string) string {
	s.t.Helper()
	var cas []*x509.Certificate
	for _, der := range cert.TLS.Certificate[1:] {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			s.t.Fatal(err)
		}
		cas = append(cas, c)
	}
	data, err := pkcs12.Modern.Encode(cert.TLS.PrivateKey, cert.TLS.Leaf, cas, password)
	if err != nil {
		s.t.Fatal(err)
	}
	return s.write(name, data)
}

// jksTrustStore writes ca's certificate as a JKS truststore made by Go.
func (s *stores) jksTrustStore(name string, ca *zktest.CertAuthority, password string) string {
	s.t.Helper()
	ks := keystore.New()
	entry := keystore.TrustedCertificateEntry{
		CreationTime: time.Now(),
		Certificate:  keystore.Certificate{Type: "X509", Content: ca.Certificate().Raw},
	}
	if err := ks.SetTrustedCertificateEntry("ca", entry); err != nil {
		s.t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ks.Store(&buf, []byte(password)); err != nil {
		s.t.Fatal(err)
	}
	return s.write(name, buf.Bytes())
}

// keytool runs Java's keytool, skipping the test when it is missing.
func (s *stores) keytool(args ...string) {
	s.t.Helper()
	path, err := exec.LookPath("keytool")
	if err != nil {
		s.t.Skip("no keytool on PATH: Java-made stores cannot be tested")
	}
	out, err := exec.Command(path, append([]string{"-noprompt"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("keytool %v: %v\n%s", args, err, out)
	}
}

// javaKeyStore converts a PKCS#12 keystore to storeType (JKS or PKCS12)
// with keytool, as an operator's keystore is made.
func (s *stores) javaKeyStore(name, fromP12, password, storeType string) string {
	s.t.Helper()
	path := filepath.Join(s.dir, name)
	s.keytool("-importkeystore", "-srckeystore", fromP12, "-srcstoretype", "PKCS12", "-srcstorepass", password,
		"-destkeystore", path, "-deststoretype", storeType, "-deststorepass", password)
	return path
}

// javaTrustStore imports ca's certificate into a new truststore of
// storeType with keytool.
func (s *stores) javaTrustStore(name string, ca *zktest.CertAuthority, password, storeType string) string {
	s.t.Helper()
	path := filepath.Join(s.dir, name)
	s.keytool("-importcert", "-alias", "zk-ca", "-file", s.write(name+".ca.pem", ca.CertPEM()),
		"-keystore", path, "-storetype", storeType, "-storepass", password)
	return path
}

func newCA(t *testing.T) *zktest.CertAuthority {
	t.Helper()
	ca, err := zktest.NewCertAuthority("test CA")
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func issue(t *testing.T, ca *zktest.CertAuthority, cn string) *zktest.Certificate {
	t.Helper()
	cert, err := ca.Issue(zktest.CertRequest{Subject: pkix.Name{CommonName: cn, Organization: []string{"Acme"}}})
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
