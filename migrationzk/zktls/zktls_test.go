package zktls_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kraftmigration/zkwriter/migrationzk/zkconn"
	"github.com/kraftmigration/zkwriter/migrationzk/zktest"
	"github.com/kraftmigration/zkwriter/migrationzk/zktls"
)

const storePassword = "changeit"

// connectAs loads props, connects to srv with the configuration, and
// checks that the server knows the client as dn.
func connectAs(t *testing.T, srv *zktest.Server, props, dn string) {
	t.Helper()
	config, err := zktls.LoadFile(props)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := zkconn.Open(ctx, srv.Servers, 10*time.Second, zkconn.WithTLS(config))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	path := "/" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	if _, err := conn.Create(path, nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	acl, _, err := conn.GetACL(path)
	if err != nil || len(acl) != 1 || acl[0].ID != dn {
		t.Fatalf("ACL %+v, %v; want x509:%s", acl, err, dn)
	}
}

// Fault: none. Keystores and truststores of each type, made by Go and by
// Java's keytool, carry a client to a TLS server that needs a client
// certificate.
func TestStoreTypesAgainstServer(t *testing.T) {
	srv := zktest.Start(t, zktest.WithTLS())
	s := newStores(t)
	cert := issue(t, srv.CA(), "alice")
	goP12 := s.pkcs12KeyStore("alice.p12", cert, storePassword)
	cases := []struct {
		name                 string
		keystore, truststore func() string
		typ                  string
	}{
		{"PEM", func() string { return s.write("alice.pem", cert.PEM) }, func() string { return s.write("ca.pem", srv.CA().CertPEM()) }, ""},
		{"PKCS12 by Go", func() string { return goP12 }, func() string { return s.write("ca-only.pem", srv.CA().CertPEM()) }, ""},
		{"PKCS12 by keytool", func() string { return s.javaKeyStore("java.p12", goP12, storePassword, "PKCS12") }, func() string { return s.javaTrustStore("trust.p12", srv.CA(), storePassword, "PKCS12") }, "PKCS12"},
		{"JKS by keytool", func() string { return s.javaKeyStore("java.jks", goP12, storePassword, "JKS") }, func() string { return s.javaTrustStore("trust.jks", srv.CA(), storePassword, "JKS") }, "jks"},
		{"JKS truststore by Go", func() string { return goP12 }, func() string { return s.jksTrustStore("go-trust.jks", srv.CA(), storePassword) }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines := []string{
				"zookeeper.ssl.client.enable=true",
				"zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty",
				"zookeeper.ssl.keystore.location=" + c.keystore(),
				"zookeeper.ssl.keystore.password=" + storePassword,
				"zookeeper.ssl.truststore.location=" + c.truststore(),
				"zookeeper.ssl.truststore.password=" + storePassword,
			}
			if c.typ != "" {
				lines = append(lines, "zookeeper.ssl.keystore.type="+c.typ, "zookeeper.ssl.truststore.type="+c.typ)
			}
			connectAs(t, srv, s.properties(lines...), cert.DN())
		})
	}
}

// Fault: the server's certificate names another host. Host name
// verification, on by default as in Kafka, refuses it; an empty
// endpoint.identification.algorithm turns only that check off.
func TestEndpointIdentification(t *testing.T) {
	srv := zktest.Start(t, zktest.WithServerHosts("zookeeper.example"))
	s := newStores(t)
	base := []string{
		"zookeeper.ssl.client.enable=true",
		"zookeeper.ssl.keystore.location=" + s.write("client.pem", srv.ClientCertificate().PEM),
		"zookeeper.ssl.truststore.location=" + s.write("ca.pem", srv.CA().CertPEM()),
	}
	config, err := zktls.LoadFile(s.properties(base...))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = zkconn.Open(ctx, srv.Servers, 10*time.Second, zkconn.WithTLS(config))
	var he *zkconn.HandshakeError
	if !errors.As(err, &he) || he.Failure != zkconn.ServerHostnameMismatch {
		t.Fatalf("with verification: %v, want a host name mismatch", err)
	}
	connectAs(t, srv, s.properties(append(base, "zookeeper.ssl.endpoint.identification.algorithm=")...), zktest.DefaultClientDN)

	// Without host name verification the chain is still verified.
	other := newCA(t)
	untrusted := append(base[:2:2], "zookeeper.ssl.truststore.location="+s.write("other.pem", other.CertPEM()), "zookeeper.ssl.endpoint.identification.algorithm=")
	config, err = zktls.LoadFile(s.properties(untrusted...))
	if err != nil {
		t.Fatal(err)
	}
	_, err = zkconn.Open(ctx, srv.Servers, 10*time.Second, zkconn.WithTLS(config))
	if !errors.As(err, &he) || he.Failure != zkconn.UntrustedServerCertificate {
		t.Fatalf("another CA without host name verification: %v, want an untrusted certificate", err)
	}
}

// Fault: none. TLS off, the default, gives no configuration.
func TestTLSOff(t *testing.T) {
	for _, props := range []map[string]string{
		{},
		{"zookeeper.ssl.client.enable": "false", "zookeeper.clientCnxnSocket": "org.apache.zookeeper.ClientCnxnSocketNIO"},
	} {
		config, err := zktls.FromProperties(props)
		if config != nil || err != nil {
			t.Fatalf("%v: %v, %v; want no configuration", props, config, err)
		}
	}
}

// Fault: none. Java properties syntax: separators, continuation lines,
// comments and escapes, no ${} expansion.
func TestJavaPropertiesSyntax(t *testing.T) {
	s := newStores(t)
	ca := newCA(t)
	cert := issue(t, ca, "alice")
	password := "p@ss ${x}\u00e9"
	p12 := s.pkcs12KeyStore("alice.p12", cert, password)
	props := s.properties(
		"# a comment",
		"! another",
		"zookeeper.ssl.client.enable : true",
		"zookeeper.ssl.keystore.location "+p12,
		`zookeeper.ssl.keystore.password=p@ss ${x}\u00e9`,
		`zookeeper.ssl.cipher.suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,\`,
		`    TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`,
	)
	config, err := zktls.LoadFile(props)
	if err != nil {
		t.Fatal(err)
	}
	if len(config.Certificates) != 1 || len(config.CipherSuites) != 2 {
		t.Fatalf("certificates %d, suites %v", len(config.Certificates), config.CipherSuites)
	}
}

// Fault: none. Protocol and cipher suite names map to Go's.
func TestProtocolsAndSuites(t *testing.T) {
	cases := []struct {
		props    map[string]string
		min, max uint16
		suites   []uint16
	}{
		{map[string]string{}, tls.VersionTLS12, tls.VersionTLS12, nil},
		{map[string]string{"zookeeper.ssl.protocol": "TLSv1.3"}, tls.VersionTLS13, tls.VersionTLS13, nil},
		{map[string]string{"zookeeper.ssl.protocol": "TLS"}, tls.VersionTLS12, tls.VersionTLS13, nil},
		{map[string]string{"zookeeper.ssl.enabled.protocols": "TLSv1.3, TLSv1.2"}, tls.VersionTLS12, tls.VersionTLS13, nil},
		{map[string]string{"zookeeper.ssl.cipher.suites": "SSL_RSA_WITH_3DES_EDE_CBC_SHA,TLS_EMPTY_RENEGOTIATION_INFO_SCSV"}, tls.VersionTLS12, tls.VersionTLS12, []uint16{tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA}},
		{map[string]string{"zookeeper.ssl.enabled.protocols": "TLSv1.2,TLSv1.3", "zookeeper.ssl.cipher.suites": "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256"}, tls.VersionTLS13, tls.VersionTLS13, nil},
		{map[string]string{"zookeeper.ssl.enabled.protocols": "TLSv1.2,TLSv1.3", "zookeeper.ssl.cipher.suites": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"}, tls.VersionTLS12, tls.VersionTLS12, []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}},
	}
	for _, c := range cases {
		c.props["zookeeper.ssl.client.enable"] = "true"
		config, err := zktls.FromProperties(c.props)
		if err != nil {
			t.Fatalf("%v: %v", c.props, err)
		}
		if config.MinVersion != c.min || config.MaxVersion != c.max || !equalSuites(config.CipherSuites, c.suites) {
			t.Errorf("%v: versions %x-%x suites %v; want %x-%x %v", c.props, config.MinVersion, config.MaxVersion, config.CipherSuites, c.min, c.max, c.suites)
		}
		if config.InsecureSkipVerify {
			t.Errorf("%v: host name verification off by default", c.props)
		}
	}
}

func equalSuites(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeGarbage writes bytes that are no store of any type.
func writeGarbage(s *stores, name string) string {
	return s.write(name, []byte("this is not a keystore\n"))
}

func mustNotExist(t *testing.T, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("%s exists", path)
	}
	return path
}

// Fault: properties and stores the package refuses. Each is an *Error
// that names the key, and the store file when one is at fault.
func TestRefusedProperties(t *testing.T) {
	s := newStores(t)
	ca := newCA(t)
	cert := issue(t, ca, "alice")
	p12 := s.pkcs12KeyStore("alice.p12", cert, storePassword)
	jks := s.jksTrustStore("trust.jks", ca, storePassword)
	missing := mustNotExist(t, filepath.Join(s.dir, "missing.p12"))
	cases := []struct {
		name, key, store string
		props            map[string]string
		want             error
	}{
		{"unknown property", "zookeeper.ssl.trustore.location", "", map[string]string{"zookeeper.ssl.trustore.location": "/x"}, zktls.ErrUnknownProperty},
		{"OCSP", "zookeeper.ssl.ocsp.enable", "", map[string]string{"zookeeper.ssl.ocsp.enable": "true"}, zktls.ErrUnsupported},
		{"CRL", "zookeeper.ssl.crl.enable", "", map[string]string{"zookeeper.ssl.crl.enable": "TRUE"}, zktls.ErrUnsupported},
		{"bad boolean", "zookeeper.ssl.client.enable", "", map[string]string{"zookeeper.ssl.client.enable": "yes"}, zktls.ErrInvalidValue},
		{"NIO with TLS", "zookeeper.clientCnxnSocket", "", map[string]string{"zookeeper.clientCnxnSocket": "org.apache.zookeeper.ClientCnxnSocketNIO"}, zktls.ErrInvalidValue},
		{"endpoint identification", "zookeeper.ssl.endpoint.identification.algorithm", "", map[string]string{"zookeeper.ssl.endpoint.identification.algorithm": "LDAPS"}, zktls.ErrUnsupported},
		{"SSLv3", "zookeeper.ssl.protocol", "", map[string]string{"zookeeper.ssl.protocol": "SSLv3"}, zktls.ErrUnsupported},
		{"unknown protocol", "zookeeper.ssl.enabled.protocols", "", map[string]string{"zookeeper.ssl.enabled.protocols": "TLSv2"}, zktls.ErrInvalidValue},
		{"protocol gap", "zookeeper.ssl.enabled.protocols", "", map[string]string{"zookeeper.ssl.enabled.protocols": "TLSv1,TLSv1.2"}, zktls.ErrUnsupported},
		{"unknown suite", "zookeeper.ssl.cipher.suites", "", map[string]string{"zookeeper.ssl.cipher.suites": "TLS_NOT_A_SUITE"}, zktls.ErrInvalidValue},
		{"some TLS 1.3 suites", "zookeeper.ssl.cipher.suites", "", map[string]string{"zookeeper.ssl.protocol": "TLSv1.3", "zookeeper.ssl.cipher.suites": "TLS_AES_128_GCM_SHA256"}, zktls.ErrUnsupported},
		{"BCFKS", "zookeeper.ssl.keystore.type", "", map[string]string{"zookeeper.ssl.keystore.location": p12, "zookeeper.ssl.keystore.type": "BCFKS"}, zktls.ErrUnsupported},
		{"unknown store type", "zookeeper.ssl.truststore.type", "", map[string]string{"zookeeper.ssl.truststore.location": jks, "zookeeper.ssl.truststore.type": "JCEKS"}, zktls.ErrInvalidValue},
		{"type by extension", "zookeeper.ssl.keystore.type", "", map[string]string{"zookeeper.ssl.keystore.location": s.write("alice.key", cert.PEM)}, zktls.ErrInvalidValue},
		{"unreadable keystore", "zookeeper.ssl.keystore.location", missing, map[string]string{"zookeeper.ssl.keystore.location": missing}, os.ErrNotExist},
		{"wrong PKCS12 password", "zookeeper.ssl.keystore.location", p12, map[string]string{"zookeeper.ssl.keystore.location": p12, "zookeeper.ssl.keystore.password": "wrong"}, zktls.ErrWrongPassword},
		{"wrong JKS password", "zookeeper.ssl.truststore.location", jks, map[string]string{"zookeeper.ssl.truststore.location": jks, "zookeeper.ssl.truststore.password": "wrong"}, zktls.ErrWrongPassword},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.props["zookeeper.ssl.client.enable"] = orDefault(c.props["zookeeper.ssl.client.enable"], "true")
			checkRefused(t, c.props, c.key, c.store, c.want)
		})
	}
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// checkRefused fails t unless props are refused with an *Error naming key
// and store and wrapping want (nil for any).
func checkRefused(t *testing.T, props map[string]string, key, store string, want error) {
	t.Helper()
	config, err := zktls.FromProperties(props)
	t.Logf("%v", err)
	var e *zktls.Error
	switch {
	case err == nil:
		t.Fatalf("accepted: %+v", config)
	case !errors.As(err, &e):
		t.Fatalf("err = %v (%T), want a *zktls.Error", err, err)
	case e.Key != key || e.Store != store:
		t.Fatalf("error names key %q store %q, want %q %q", e.Key, e.Store, key, store)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("err = %v, want it to wrap %v", err, want)
	}
}

// Fault: keystores of every type that are no keystores, or hold keys
// Kafka cannot read: errors naming the file.
func TestMalformedStores(t *testing.T) {
	s := newStores(t)
	ca := newCA(t)
	cert := issue(t, ca, "alice")
	sec1 := sec1KeyStore(t, cert)
	encrypted := strings.Replace(string(cert.PEM), "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", 2)
	other := issue(t, ca, "bob")
	mismatched := append(other.PEM[:strings.Index(string(other.PEM), "-----BEGIN CERTIFICATE")], cert.PEM[strings.Index(string(cert.PEM), "-----BEGIN CERTIFICATE"):]...)
	for name, path := range map[string]string{
		"garbage.pem":    writeGarbage(s, "garbage.pem"),
		"garbage.p12":    writeGarbage(s, "garbage.p12"),
		"garbage.jks":    writeGarbage(s, "garbage.jks"),
		"sec1.pem":       s.write("sec1.pem", sec1),
		"encrypted.pem":  s.write("encrypted.pem", []byte(encrypted)),
		"mismatched.pem": s.write("mismatched.pem", mismatched),
		"cert-only.pem":  s.write("cert-only.pem", ca.CertPEM()),
	} {
		t.Run(name, func(t *testing.T) {
			want := zktls.ErrMalformedStore
			if name == "encrypted.pem" {
				want = zktls.ErrUnsupported
			}
			checkRefused(t, map[string]string{"zookeeper.ssl.client.enable": "true", "zookeeper.ssl.keystore.location": path},
				"zookeeper.ssl.keystore.location", path, want)
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		path := filepath.Join(s.dir, "a-directory.pem")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		checkRefused(t, map[string]string{"zookeeper.ssl.client.enable": "true", "zookeeper.ssl.keystore.location": path},
			"zookeeper.ssl.keystore.location", path, nil)
	})
	t.Run("empty truststore", func(t *testing.T) {
		path := s.write("empty.pem", []byte("\n"))
		checkRefused(t, map[string]string{"zookeeper.ssl.client.enable": "true", "zookeeper.ssl.truststore.location": path},
			"zookeeper.ssl.truststore.location", path, nil)
	})
}

// sec1KeyStore returns cert's key as a SEC1 "EC PRIVATE KEY" and its
// chain: a PEM file ZooKeeper's PEM reader refuses.
func sec1KeyStore(t *testing.T, cert *zktest.Certificate) []byte {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(cert.TLS.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	return append(out, cert.PEM[strings.Index(string(cert.PEM), "-----BEGIN CERTIFICATE"):]...)
}

// Fault: an unknown key in a file: the error names the file and the key.
func TestLoadFileNamesFile(t *testing.T) {
	s := newStores(t)
	path := s.properties("zookeeper.ssl.client.enable=true", "zookeeper.ssl.keystore.pasword=secret")
	_, err := zktls.LoadFile(path)
	var e *zktls.Error
	if !errors.As(err, &e) || e.File != path || e.Key != "zookeeper.ssl.keystore.pasword" || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want an *Error naming %s and the key", err, path)
	}
	if _, err := zktls.LoadFile(filepath.Join(s.dir, "none.properties")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// A broker's server.properties reads as Kafka's tools read it: keys that
// are not ZooKeeper client keys are ignored and listed, ZooKeeper's own
// names come with the Kafka key to use, and a misspelt zookeeper.ssl. key
// is still refused.
func TestLoadFileServerProperties(t *testing.T) {
	s := newStores(t)
	path := s.properties("broker.id=1", "zookeeper.connect=zk:2181/kafka", "log.dirs=/var/lib/kafka",
		"zookeeper.ssl.client.enable=true", "zookeeper.ssl.hostnameVerification=false", "zookeeper.client.secure=true")
	config, ignored, err := zktls.LoadFileIgnoring(path)
	if err != nil || config == nil {
		t.Fatalf("LoadFileIgnoring = %v, %v; want a config", config, err)
	}
	want := []zktls.IgnoredKey{
		{Key: "broker.id"}, {Key: "log.dirs"},
		{Key: "zookeeper.client.secure", Use: "zookeeper.ssl.client.enable"},
		{Key: "zookeeper.connect"},
		{Key: "zookeeper.ssl.hostnameVerification", Use: "zookeeper.ssl.endpoint.identification.algorithm"},
	}
	if !reflect.DeepEqual(ignored, want) {
		t.Fatalf("ignored = %+v, want %+v", ignored, want)
	}
	if config.InsecureSkipVerify {
		t.Fatal("ZooKeeper's hostnameVerification=false turned host name checks off; Kafka's tools ignore it")
	}
	bad := s.properties("broker.id=1", "zookeeper.ssl.hostname.verification=false")
	if _, _, err := zktls.LoadFileIgnoring(bad); !errors.Is(err, zktls.ErrUnknownProperty) {
		t.Fatalf("misspelt zookeeper.ssl. key: err = %v, want ErrUnknownProperty", err)
	}
}

// Fault: a store given the wrong type. The error names the type the file
// is and the key to set, and shows no ASN.1 decoder internals.
func TestWrongStoreType(t *testing.T) {
	s := newStores(t)
	ca := newCA(t)
	p12 := s.pkcs12KeyStore("alice.p12", issue(t, ca, "alice"), storePassword)
	jks := s.jksTrustStore("trust.jks", ca, storePassword)
	for _, tc := range []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{"zookeeper.ssl.truststore.location": jks, "zookeeper.ssl.truststore.password": storePassword, "zookeeper.ssl.truststore.type": "PKCS12"},
			"the file is a JKS store: set zookeeper.ssl.truststore.type=JKS"},
		{map[string]string{"zookeeper.ssl.keystore.location": p12, "zookeeper.ssl.keystore.password": storePassword, "zookeeper.ssl.keystore.type": "PEM"},
			"the file is a PKCS12 store: set zookeeper.ssl.keystore.type=PKCS12"},
	} {
		tc.props["zookeeper.ssl.client.enable"] = "true"
		_, err := zktls.FromProperties(tc.props)
		if !errors.Is(err, zktls.ErrMalformedStore) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "asn1") {
			t.Errorf("err = %v, want ErrMalformedStore saying %q, without asn1 internals", err, tc.want)
		}
	}
}
