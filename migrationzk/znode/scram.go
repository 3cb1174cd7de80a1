package znode

import (
	"bytes"
	"encoding/base64"
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

// DecodeScramCredential decodes the text form of a SCRAM credential: the
// four key=value pairs salt, stored_key, server_key and iterations, in any
// order, separated by commas, each key once and no other key. The keys are
// standard Base64, with or without padding (as Java's decoder accepts
// them); iterations is a decimal int32 without a '+'.
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
		if *k.dst, err = decodeScramBase64(fields[k.name]); err != nil {
			return ScramCredential{}, newError(scramPattern, k.name, ErrInvalidValue, err.Error(), data)
		}
	}
	it := fields[scramIterations]
	if !isDecimal(it) {
		return ScramCredential{}, newError(scramPattern, scramIterations, ErrWrongType, "got "+strconv.Quote(shorten(it))+", want decimal integer", data)
	}
	v, err := strconv.ParseInt(it, 10, 32)
	if err != nil {
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
	for _, token := range strings.Split(string(data), ",") {
		key, value, ok := strings.Cut(token, "=")
		if !ok || key == "" {
			return nil, newError(scramPattern, "", ErrInvalidValue, "not key=value: "+strconv.Quote(shorten(token)), data)
		}
		switch key {
		case scramSalt, scramStoredKey, scramServerKey, scramIterations:
		default:
			return nil, newError(scramPattern, key, ErrInvalidValue, "unknown key", data)
		}
		if _, dup := fields[key]; dup {
			return nil, newError(scramPattern, key, ErrInvalidValue, "key repeated", data)
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

// decodeScramBase64 decodes standard Base64 with or without padding.
func decodeScramBase64(s string) ([]byte, error) {
	enc := base64.StdEncoding.Strict()
	if len(s)%4 != 0 {
		enc = base64.RawStdEncoding.Strict()
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}
