package zktls

import (
	"crypto/tls"
	"fmt"
	"strings"
)

// defaultProtocol is Kafka's zookeeper.ssl.protocol.
const defaultProtocol = "TLSv1.2"

// javaVersion maps a Java protocol name to Go's version.
func javaVersion(name string) (uint16, bool) {
	switch name {
	case "TLSv1":
		return tls.VersionTLS10, true
	case "TLSv1.1":
		return tls.VersionTLS11, true
	case "TLSv1.2":
		return tls.VersionTLS12, true
	case "TLSv1.3":
		return tls.VersionTLS13, true
	}
	return 0, false
}

// parseVersions returns the range of TLS versions the protocol properties
// enable. As in ZooKeeper's client, enabled.protocols defaults to the
// protocol alone; "TLS" as the protocol means TLS 1.2 and 1.3.
func parseVersions(props map[string]string) (minVersion, maxVersion uint16, err error) {
	protocol := props[keyProtocol]
	if protocol == "" {
		protocol = defaultProtocol
	}
	enabled := splitList(props[keyEnabledProtocols])
	key := keyEnabledProtocols
	if len(enabled) == 0 {
		key, enabled = keyProtocol, []string{protocol}
		if protocol == "TLS" {
			enabled = []string{"TLSv1.2", "TLSv1.3"}
		}
	} else if _, ok := javaVersion(protocol); !ok && protocol != "TLS" {
		return 0, 0, versionError(keyProtocol, protocol)
	}
	versions := map[uint16]bool{}
	for _, name := range enabled {
		v, ok := javaVersion(name)
		if !ok {
			return 0, 0, versionError(key, name)
		}
		versions[v] = true
	}
	return versionRange(key, versions)
}

func versionError(key, name string) error {
	if strings.HasPrefix(name, "SSL") {
		return &Error{Key: key, Err: fmt.Errorf("%w: protocol %q", ErrUnsupported, name)}
	}
	return &Error{Key: key, Err: fmt.Errorf("%w: unknown protocol %q (want TLSv1, TLSv1.1, TLSv1.2 or TLSv1.3)", ErrInvalidValue, name)}
}

// versionRange returns the lowest and highest of versions, which must have
// no gap: Go enables a range of versions, not a set.
func versionRange(key string, versions map[uint16]bool) (minVersion, maxVersion uint16, err error) {
	for v := range versions {
		if minVersion == 0 || v < minVersion {
			minVersion = v
		}
		maxVersion = max(maxVersion, v)
	}
	for v := minVersion; v <= maxVersion; v++ {
		if !versions[v] {
			return 0, 0, &Error{Key: key, Err: fmt.Errorf("%w: enabled protocols with a gap; list every version from the lowest to the highest", ErrUnsupported)}
		}
	}
	return minVersion, maxVersion, nil
}

// suitesByName maps the IANA names Java uses to Go's cipher suites.
func suitesByName() map[string]*tls.CipherSuite {
	m := map[string]*tls.CipherSuite{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		m[s.Name] = s
	}
	return m
}

// scsv is the renegotiation signalling value Java lists among its suites;
// Go always signals secure renegotiation.
const scsv = "TLS_EMPTY_RENEGOTIATION_INFO_SCSV"

// parseCipherSuites returns the TLS 1.2-and-earlier suites the property
// names, and the version range narrowed as a Java client's would be by
// the suites it lacks. Go always enables every TLS 1.3 suite, so a list
// naming only some of them is refused.
func parseCipherSuites(props map[string]string, minVersion, maxVersion uint16) ([]uint16, uint16, uint16, error) {
	names := splitList(props[keyCipherSuites])
	if len(names) == 0 {
		return nil, minVersion, maxVersion, nil
	}
	legacy, tls13, err := lookUpSuites(names)
	if err != nil {
		return nil, 0, 0, err
	}
	fail := func(format string, args ...any) error {
		return &Error{Key: keyCipherSuites, Err: fmt.Errorf(format, args...)}
	}
	if maxVersion == tls.VersionTLS13 && tls13 > 0 && tls13 < 3 {
		return nil, 0, 0, fail("%w: only some TLS 1.3 suites; Go enables all three (TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256)", ErrUnsupported)
	}
	if maxVersion == tls.VersionTLS13 && tls13 == 0 {
		maxVersion = tls.VersionTLS12
	}
	if len(legacy) == 0 && minVersion < tls.VersionTLS13 {
		minVersion = tls.VersionTLS13
	}
	if minVersion > maxVersion {
		return nil, 0, 0, fail("%w: no suite for the enabled protocols", ErrInvalidValue)
	}
	return legacy, minVersion, maxVersion, nil
}

// lookUpSuites returns the ids of the TLS 1.2-and-earlier suites of names
// and how many TLS 1.3 suites they hold. Java's SSL_ prefix is TLS_.
func lookUpSuites(names []string) (legacy []uint16, tls13 int, err error) {
	byName := suitesByName()
	seen13 := map[uint16]bool{}
	for _, name := range names {
		if name == scsv {
			continue
		}
		s, ok := byName[name]
		if rest, java := strings.CutPrefix(name, "SSL_"); !ok && java {
			s, ok = byName["TLS_"+rest]
		}
		if !ok {
			return nil, 0, &Error{Key: keyCipherSuites, Err: fmt.Errorf("%w: unknown cipher suite %q", ErrInvalidValue, name)}
		}
		if len(s.SupportedVersions) == 1 && s.SupportedVersions[0] == tls.VersionTLS13 {
			seen13[s.ID] = true
		} else {
			legacy = append(legacy, s.ID)
		}
	}
	return legacy, len(seen13), nil
}
