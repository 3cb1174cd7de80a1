package zktls

import (
	"fmt"
	"strings"
)

// The properties, as Kafka names them.
const (
	keyClientEnable     = "zookeeper.ssl.client.enable"
	keyClientCnxnSocket = "zookeeper.clientCnxnSocket"
	keyKeyStoreLocation = "zookeeper.ssl.keystore.location"
	keyKeyStorePassword = "zookeeper.ssl.keystore.password"
	keyKeyStoreType     = "zookeeper.ssl.keystore.type"
	keyTrustLocation    = "zookeeper.ssl.truststore.location"
	keyTrustPassword    = "zookeeper.ssl.truststore.password"
	keyTrustType        = "zookeeper.ssl.truststore.type"
	keyEndpointIdent    = "zookeeper.ssl.endpoint.identification.algorithm"
	keyProtocol         = "zookeeper.ssl.protocol"
	keyEnabledProtocols = "zookeeper.ssl.enabled.protocols"
	keyCipherSuites     = "zookeeper.ssl.cipher.suites"
	keyOCSP             = "zookeeper.ssl.ocsp.enable"
	keyCRL              = "zookeeper.ssl.crl.enable"
)

// sslPrefix starts every TLS key: an unknown key with it is a misspelling.
const sslPrefix = "zookeeper.ssl."

// kafkaKeyFor returns the Kafka key that sets what k, one of ZooKeeper's
// own client property names, sets; Kafka's tools do not read ZooKeeper's
// names from the file. ok is false when k is not one of them.
func kafkaKeyFor(k string) (key string, ok bool) {
	switch k {
	case "zookeeper.client.secure":
		return keyClientEnable, true
	case "zookeeper.ssl.keyStore.location":
		return keyKeyStoreLocation, true
	case "zookeeper.ssl.keyStore.password":
		return keyKeyStorePassword, true
	case "zookeeper.ssl.keyStore.type":
		return keyKeyStoreType, true
	case "zookeeper.ssl.trustStore.location":
		return keyTrustLocation, true
	case "zookeeper.ssl.trustStore.password":
		return keyTrustPassword, true
	case "zookeeper.ssl.trustStore.type":
		return keyTrustType, true
	case "zookeeper.ssl.enabledProtocols":
		return keyEnabledProtocols, true
	case "zookeeper.ssl.ciphersuites":
		return keyCipherSuites, true
	case "zookeeper.ssl.hostnameVerification":
		return keyEndpointIdent, true
	case "zookeeper.ssl.crl":
		return keyCRL, true
	case "zookeeper.ssl.ocsp":
		return keyOCSP, true
	}
	return "", false
}

// The values of zookeeper.clientCnxnSocket.
const (
	nettySocket = "org.apache.zookeeper.ClientCnxnSocketNetty"
	nioSocket   = "org.apache.zookeeper.ClientCnxnSocketNIO"
)

func isKnownKey(k string) bool {
	switch k {
	case keyClientEnable, keyClientCnxnSocket,
		keyKeyStoreLocation, keyKeyStorePassword, keyKeyStoreType,
		keyTrustLocation, keyTrustPassword, keyTrustType,
		keyEndpointIdent, keyProtocol, keyEnabledProtocols, keyCipherSuites,
		keyOCSP, keyCRL:
		return true
	}
	return isSASLKey(k)
}

// tlsKeys are Kafka's TLS keys, those starting with sslPrefix.
func tlsKeys() []string {
	return []string{keyClientEnable, keyKeyStoreLocation, keyKeyStorePassword, keyKeyStoreType,
		keyTrustLocation, keyTrustPassword, keyTrustType, keyEndpointIdent, keyProtocol,
		keyEnabledProtocols, keyCipherSuites, keyOCSP, keyCRL}
}

// nearestKey returns the TLS key that k, an unknown key starting with
// sslPrefix, most likely misspells: the nearest by edit distance, case
// aside, within a third of the length of what follows the prefix; "" for
// none.
func nearestKey(k string) string {
	lower := strings.ToLower(k)
	best, bestDistance := "", (len(k)-len(sslPrefix))/3+1
	for _, key := range tlsKeys() {
		if d := editDistance(lower, strings.ToLower(key)); d < bestDistance {
			best, bestDistance = key, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diagonal := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			diagonal, row[j] = row[j], min(row[j]+1, row[j-1]+1, diagonal+cost)
		}
	}
	return row[len(b)]
}

// isSASLKey reports whether k is one of the SASL settings a Kafka tool
// takes as system properties: zkconn/sasl's SettingsFromProperties reads
// them, and this package ignores them.
func isSASLKey(k string) bool {
	switch k {
	case "java.security.auth.login.config", "java.security.krb5.conf", "zookeeper.sasl.client",
		"zookeeper.sasl.clientconfig", "zookeeper.sasl.client.username", "zookeeper.server.principal",
		"zookeeper.sasl.client.canonicalize.hostname":
		return true
	}
	return false
}

// settings are the properties, checked.
type settings struct {
	enabled                bool
	keystore, truststore   store
	verifyHostname         bool
	minVersion, maxVersion uint16
	cipherSuites           []uint16
}

func parseSettings(props map[string]string) (*settings, error) {
	s := &settings{
		keystore:   newStore("keystore", keyKeyStoreLocation, keyKeyStorePassword, keyKeyStoreType, props),
		truststore: newStore("truststore", keyTrustLocation, keyTrustPassword, keyTrustType, props),
	}
	var err error
	if s.enabled, err = parseBool(props, keyClientEnable, false); err != nil {
		return nil, err
	}
	if err := checkSocket(props[keyClientCnxnSocket], s.enabled); err != nil {
		return nil, err
	}
	if err := checkRevocation(props); err != nil {
		return nil, err
	}
	if s.verifyHostname, err = parseEndpointIdentification(props); err != nil {
		return nil, err
	}
	if s.minVersion, s.maxVersion, err = parseVersions(props); err != nil {
		return nil, err
	}
	if s.cipherSuites, s.minVersion, s.maxVersion, err = parseCipherSuites(props, s.minVersion, s.maxVersion); err != nil {
		return nil, err
	}
	return s, nil
}

// parseBool reads a boolean as Kafka does: true or false, in any case.
func parseBool(props map[string]string, key string, def bool) (bool, error) {
	v, ok := props[key]
	switch {
	case !ok:
		return def, nil
	case strings.EqualFold(v, "true"):
		return true, nil
	case strings.EqualFold(v, "false"):
		return false, nil
	}
	return false, &Error{Key: key, Err: fmt.Errorf("%w %q: want true or false", ErrInvalidValue, v)}
}

// checkSocket accepts Netty's client socket, and NIO's without TLS, which
// it cannot carry.
func checkSocket(v string, tlsEnabled bool) error {
	switch {
	case v == "" || v == nettySocket:
		return nil
	case v == nioSocket && !tlsEnabled:
		return nil
	case v == nioSocket:
		return &Error{Key: keyClientCnxnSocket, Err: fmt.Errorf("%w %q: TLS needs %s", ErrInvalidValue, v, nettySocket)}
	}
	return &Error{Key: keyClientCnxnSocket, Err: fmt.Errorf("%w %q: want %s", ErrInvalidValue, v, nettySocket)}
}

// checkRevocation refuses OCSP and CRL checks, which the client cannot
// make: ignoring them would accept revoked certificates.
func checkRevocation(props map[string]string) error {
	for _, key := range []string{keyOCSP, keyCRL} {
		on, err := parseBool(props, key, false)
		if err != nil {
			return err
		}
		if on {
			return &Error{Key: key, Err: fmt.Errorf("%w: certificate revocation checks (OCSP, CRL) are not available; set it to false", ErrUnsupported)}
		}
	}
	return nil
}

// parseEndpointIdentification reports whether the server's host name is
// verified: HTTPS (the default) or empty.
func parseEndpointIdentification(props map[string]string) (bool, error) {
	v, ok := props[keyEndpointIdent]
	switch {
	case !ok || strings.EqualFold(v, "HTTPS"):
		return true, nil
	case v == "":
		return false, nil
	}
	return false, &Error{Key: keyEndpointIdent, Err: fmt.Errorf("%w: %q: want HTTPS, or empty to turn host name verification off", ErrUnsupported, v)}
}

// splitList splits a comma-separated list as Kafka does, dropping empty
// items.
func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
