package passwordencoder

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"fmt"
	"hash"
	"unicode/utf8"
)

// stored is what an encoded password holds, parsed.
type stored struct {
	prf            func() hash.Hash
	mode           mode
	keyLength      int
	iterations     int
	passwordLength int
	salt           []byte
	encrypted      []byte
	iv             []byte
	tagBits        int
}

// Decode returns the password encoded holds, reading it as Kafka's
// EncryptingPasswordEncoder does: with the key factory, cipher, key length
// and iterations stored in it (a missing key factory is
// DefaultKeyFactoryAlgorithm), and e's secret. Its errors wrap
// ErrMalformed, ErrUnsupportedAlgorithm or ErrWrongSecret; they name
// fields and never quote the value.
func (e *Encoder) Decode(encoded string) (string, error) {
	if e == nil {
		return encoded, nil
	}
	s, err := e.parse(encoded)
	if err != nil {
		return "", err
	}
	block, err := aes.NewCipher(e.key(s.prf, s.salt, s.iterations, s.keyLength))
	if err != nil {
		return "", fieldError(ErrMalformed, fieldKeyLength, err.Error())
	}
	var plain []byte
	if s.mode == modeGCM {
		plain, err = decryptGCM(block, s)
	} else {
		plain, err = decryptCBC(block, s.iv, s.encrypted)
	}
	if err != nil {
		return "", err
	}
	// The JDK decodes the bytes leniently, turning what is not UTF-8
	// into U+FFFD, and then checks the length; a value that is not UTF-8
	// is refused here instead, whatever its length.
	if !utf8.Valid(plain) {
		// Both reasons hold: with a wrong secret the bytes are noise.
		return "", fmt.Errorf("passwordencoder: %w: the decrypted bytes are not UTF-8 (%w)", ErrWrongSecret, ErrInvalidPassword)
	}
	if javaLength(string(plain)) != s.passwordLength {
		return "", fmt.Errorf("passwordencoder: %w: the length check failed", ErrWrongSecret)
	}
	return string(plain), nil
}

// decryptGCM opens s's AES/GCM ciphertext.
func decryptGCM(block cipher.Block, s stored) ([]byte, error) {
	aead, err := newGCM(block, s.tagBits, len(s.iv))
	if err != nil {
		return nil, err
	}
	plain, err := aead.Open(nil, s.iv, s.encrypted, nil)
	if err != nil {
		return nil, fmt.Errorf("passwordencoder: %w", ErrWrongSecret)
	}
	return plain, nil
}

// parse parses and checks the fields of an encoded password.
func (e *Encoder) parse(encoded string) (stored, error) {
	params, err := parseCSVMap(encoded)
	if err != nil {
		return stored{}, fmt.Errorf("passwordencoder: %w: %v", ErrMalformed, err)
	}
	f := fieldReader{params: params}
	s := stored{
		keyLength: f.int(fieldKeyLength), salt: f.bytes(fieldSalt), iterations: f.int(fieldIterations),
		encrypted: f.bytes(fieldEncrypted), passwordLength: f.int(fieldLength),
	}
	cipherName := f.string(fieldCipher)
	if e.mode == modeGCM {
		s.tagBits, s.iv = f.int(fieldTagLength), f.bytes(fieldIV)
	} else {
		s.iv = f.bytes(fieldIV)
	}
	if f.err != nil {
		return stored{}, f.err
	}
	if s.prf, err = e.storedKeyFactory(params); err != nil {
		return stored{}, err
	}
	if s.mode, err = parseCipher(cipherName); err != nil {
		return stored{}, err
	}
	if s.mode != e.mode {
		return stored{}, fmt.Errorf("passwordencoder: %w: cipher %q: an encoder configured with %q reads %s values only, as Kafka's does",
			ErrUnsupportedAlgorithm, cipherName, e.cipher, modeName(e.mode))
	}
	return s, checkDerivation(s)
}

// storedKeyFactory returns the PRF of the stored key factory, Kafka's
// default when none is stored.
func (e *Encoder) storedKeyFactory(params map[string]string) (func() hash.Hash, error) {
	name, ok := params[fieldKeyFactory]
	if !ok {
		name = DefaultKeyFactoryAlgorithm
	}
	return keyFactoryHash(name)
}

// checkDerivation refuses what the JDK's PBEKeySpec and AES refuse.
func checkDerivation(s stored) error {
	switch {
	case len(s.salt) == 0:
		return fieldError(ErrMalformed, fieldSalt, "empty")
	case s.iterations <= 0:
		return fieldError(ErrMalformed, fieldIterations, fmt.Sprintf("%d: want a positive count", s.iterations))
	case s.keyLength <= 0:
		return fieldError(ErrMalformed, fieldKeyLength, fmt.Sprintf("%d: want a positive length", s.keyLength))
	}
	return checkKeyLength(s.keyLength)
}

// modeName names the family of values an encoder of mode m reads.
func modeName(m mode) string {
	if m == modeGCM {
		return "AES/GCM"
	}
	return "non-GCM"
}

// fieldReader reads fields of an encoded password, keeping the first
// error.
type fieldReader struct {
	params map[string]string
	err    error
}

// string returns the field name, an error when it is missing.
func (f *fieldReader) string(name string) string {
	v, ok := f.params[name]
	if !ok && f.err == nil {
		f.err = fieldError(ErrMalformed, name, "missing")
	}
	return v
}

// int returns the field name parsed as Integer.parseInt parses.
func (f *fieldReader) int(name string) int {
	v := f.string(name)
	n, err := javaParseInt(v)
	if err != nil && f.err == nil {
		f.err = fieldError(ErrMalformed, name, "not a 32-bit integer")
	}
	return n
}

// bytes returns the field name decoded as java.util.Base64 decodes.
func (f *fieldReader) bytes(name string) []byte {
	v := f.string(name)
	b, err := javaBase64Decode(v)
	if err != nil && f.err == nil {
		f.err = fieldError(ErrMalformed, name, "not Base64")
	}
	return b
}

// b64 encodes b as java.util.Base64.getEncoder does.
func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
