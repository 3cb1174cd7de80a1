package znode

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// The SCRAM mechanisms: the config keys of a user's config znode that hold
// its credentials.
const (
	ScramSHA256 = "SCRAM-SHA-256"
	ScramSHA512 = "SCRAM-SHA-512"
)

// ScramCredential is a user's SCRAM credential for one mechanism, stored
// as the value of the mechanism's key in the user's config znode.
type ScramCredential struct {
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
	Iterations int32
}

// scramPattern is the path reported by DecodeScramCredential.
const scramPattern = ConfigRootPath + "/" + EntityUsers + "/<user>"

// The keys of a credential's text form, in the order Kafka writes them.
const (
	scramSalt       = "salt"
	scramStoredKey  = "stored_key"
	scramServerKey  = "server_key"
	scramIterations = "iterations"
)

// Equal reports whether c and d have equal fields; nil and empty byte
// slices are equal.
func (c ScramCredential) Equal(d ScramCredential) bool {
	return bytes.Equal(c.Salt, d.Salt) && bytes.Equal(c.StoredKey, d.StoredKey) &&
		bytes.Equal(c.ServerKey, d.ServerKey) && c.Iterations == d.Iterations
}

// Encode returns the text form of c as Kafka writes it, standard Base64
// with padding, for example
//
//	salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=4096
func (c ScramCredential) Encode() []byte {
	n := len("salt=,stored_key=,server_key=,iterations=") + 11
	for _, b := range [][]byte{c.Salt, c.StoredKey, c.ServerKey} {
		n += base64.StdEncoding.EncodedLen(len(b))
	}
	return c.AppendEncode(make([]byte, 0, n))
}

// AppendEncode appends the encoding of c, as returned by Encode, to dst
// and returns the extended slice.
func (c ScramCredential) AppendEncode(dst []byte) []byte {
	dst = append(dst, scramSalt+"="...)
	dst = base64.StdEncoding.AppendEncode(dst, c.Salt)
	dst = append(dst, ","+scramStoredKey+"="...)
	dst = base64.StdEncoding.AppendEncode(dst, c.StoredKey)
	dst = append(dst, ","+scramServerKey+"="...)
	dst = base64.StdEncoding.AppendEncode(dst, c.ServerKey)
	dst = append(dst, ","+scramIterations+"="...)
	return strconv.AppendInt(dst, int64(c.Iterations), 10)
}

// DecodeScramCredential decodes the text form of a SCRAM credential as
// Kafka 3.9's ScramCredentialUtils.credentialFromString reads it: key=value
// pairs separated by commas, trailing empty pairs ignored, holding the
// four keys salt, stored_key, server_key and iterations, in any order, and
// no other key; a repeated key keeps its last value. The keys are standard
// Base64 as java.util.Base64 reads it: padding optional, the unused bits of
// the last character ignored. iterations is read as Integer.parseInt
// reads it.
//
// The Path of a returned *DecodeError is "/config/users/<user>",
// literally, and its Field the key at fault.
func DecodeScramCredential(data []byte) (ScramCredential, error) {
	fields, err := scramFields(data)
	if err != nil {
		return ScramCredential{}, err
	}
	var c ScramCredential
	keys := []struct {
		name string
		dst  *[]byte
	}{{scramSalt, &c.Salt}, {scramStoredKey, &c.StoredKey}, {scramServerKey, &c.ServerKey}}
	for _, k := range keys {
		if *k.dst, err = decodeJavaBase64(fields[k.name]); err != nil {
			return ScramCredential{}, newError(scramPattern, k.name, ErrInvalidValue, err.Error(), data)
		}
	}
	it := fields[scramIterations]
	v, isNumber, fits := parseJavaInt(it, 32)
	switch {
	case !isNumber:
		return ScramCredential{}, newError(scramPattern, scramIterations, ErrWrongType, "got "+strconv.Quote(shorten(it))+", want decimal integer", data)
	case !fits:
		return ScramCredential{}, newError(scramPattern, scramIterations, ErrOutOfRange, shorten(it)+" does not fit in int32", data)
	}
	c.Iterations = int32(v)
	return c, nil
}

// scramFields splits a credential's text form into its four fields.
func scramFields(data []byte) (map[string]string, error) {
	if err := checkData(scramPattern, data); err != nil {
		return nil, err
	}
	fields := make(map[string]string, 4)
	// String.split drops the empty tokens at the end.
	for _, token := range strings.Split(strings.TrimRight(string(data), ","), ",") {
		key, value, ok := strings.Cut(token, "=")
		if !ok || key == "" {
			return nil, newError(scramPattern, "", ErrInvalidValue, "not key=value: "+strconv.Quote(shorten(token)), data)
		}
		switch key {
		case scramSalt, scramStoredKey, scramServerKey, scramIterations:
		default:
			return nil, newError(scramPattern, key, ErrInvalidValue, "unknown key", data)
		}
		fields[key] = value
	}
	for _, key := range []string{scramSalt, scramStoredKey, scramServerKey, scramIterations} {
		if _, ok := fields[key]; !ok {
			return nil, newError(scramPattern, key, ErrMissingField, "", data)
		}
	}
	return fields, nil
}

// decodeJavaBase64 decodes standard Base64 as java.util.Base64's basic
// decoder does: padding optional but, when present, complete; the unused
// low bits of the last character ignored.
func decodeJavaBase64(s string) ([]byte, error) {
	text := strings.TrimRight(s, "=")
	if pad := len(s) - len(text); pad > 0 && (pad > 2 || (len(text)+pad)%4 != 0) {
		return nil, fmt.Errorf("padding %q after %d characters", s[len(text):], len(text))
	}
	if strings.ContainsAny(text, "\r\n") {
		return nil, fmt.Errorf("a line break")
	}
	if len(text)%4 == 1 {
		return nil, fmt.Errorf("%d characters: a lone last character", len(text))
	}
	b, err := base64.RawStdEncoding.DecodeString(text)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}
