package passwordencoder

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"strconv"
	"unicode/utf8"

	"golang.org/x/crypto/pbkdf2"

	"github.com/kraftmigration/zkwriter/internal/jvm"
)

// Kafka's defaults for the password.encoder.* settings, and the least
// values its config definition accepts.
const (
	DefaultKeyFactoryAlgorithm = PBKDF2WithHmacSHA512
	DefaultCipherAlgorithm     = AESCBC
	DefaultKeyLength           = 128
	DefaultIterations          = 4096
	MinKeyLength               = 8
	MinIterations              = 1024
)

// Names of the fields of an encoded password.
const (
	fieldKeyFactory = "keyFactoryAlgorithm"
	fieldCipher     = "cipherAlgorithm"
	fieldIV         = "initializationVector"
	fieldKeyLength  = "keyLength"
	fieldSalt       = "salt"
	fieldIterations = "iterations"
	fieldEncrypted  = "encryptedPassword"
	fieldLength     = "passwordLength"
	fieldTagLength  = "authenticationTagLength"
)

// saltSize is the size of the random salt of every encoding.
const saltSize = 256

// Encoder encodes and decodes password configs with a secret, as Kafka's
// EncryptingPasswordEncoder does. It is safe for concurrent use. It never
// prints its secret: String, GoString and LogValue show its settings only.
// A nil *Encoder is Kafka without a secret (PasswordEncoder.NOOP): it
// encodes and decodes a value as itself.
type Encoder struct {
	secret     []byte
	keyFactory string
	prf        func() hash.Hash
	cipher     string
	mode       mode
	keyLength  int
	iterations int
	random     io.Reader
}

// settings are an Encoder's settings while Options apply.
type settings struct {
	keyFactory    string
	keyFactorySet bool
	cipher        string
	keyLength     int
	iterations    int
	random        io.Reader
}

// Option sets one encoding setting of New.
type Option func(*settings)

// WithKeyFactoryAlgorithm sets password.encoder.keyfactory.algorithm, the
// PBKDF2 key factory encodings use (DefaultKeyFactoryAlgorithm when not
// given). The name is stored with each encoded password as given.
func WithKeyFactoryAlgorithm(name string) Option {
	return func(s *settings) { s.keyFactory, s.keyFactorySet = name, true }
}

// WithCipherAlgorithm sets password.encoder.cipher.algorithm, AESCBC or
// AESGCM (DefaultCipherAlgorithm when not given). It also decides which
// values Decode reads: see the package documentation.
func WithCipherAlgorithm(transformation string) Option {
	return func(s *settings) { s.cipher = transformation }
}

// WithKeyLength sets password.encoder.key.length in bits
// (DefaultKeyLength when not given): 128, 192 or 256, the AES key sizes,
// or up to 7 bits more, which the JDK truncates.
func WithKeyLength(bits int) Option {
	return func(s *settings) { s.keyLength = bits }
}

// WithIterations sets password.encoder.iterations, the PBKDF2 iteration
// count (DefaultIterations when not given), at least MinIterations.
func WithIterations(n int) Option {
	return func(s *settings) { s.iterations = n }
}

// New returns an Encoder with password.encoder.secret secret and the
// given settings, or an error wrapping ErrInvalidSetting or
// ErrUnsupportedAlgorithm for a setting Kafka refuses or cannot encode
// with. A nil option is an error wrapping ErrInvalidArgument and
// ErrInvalidSetting.
func New(secret string, opts ...Option) (*Encoder, error) {
	s := settings{keyFactory: DefaultKeyFactoryAlgorithm, cipher: DefaultCipherAlgorithm,
		keyLength: DefaultKeyLength, iterations: DefaultIterations, random: rand.Reader}
	for i, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("passwordencoder: %w (%w): option %d is nil", ErrInvalidArgument, ErrInvalidSetting, i)
		}
		opt(&s)
	}
	if !utf8.ValidString(secret) {
		return nil, fmt.Errorf("passwordencoder: %w: the secret is not valid UTF-8", ErrInvalidSetting)
	}
	prf, err := keyFactoryHash(s.keyFactory)
	if err != nil {
		return nil, err
	}
	m, err := configuredMode(s.cipher)
	if err != nil {
		return nil, err
	}
	if err := checkKeyLength(s.keyLength); err != nil {
		return nil, fmt.Errorf("passwordencoder: %w: key length %d bits: want 128, 192 or 256", ErrInvalidSetting, s.keyLength)
	}
	if s.iterations < MinIterations {
		return nil, fmt.Errorf("passwordencoder: %w: %d iterations: want at least %d", ErrInvalidSetting, s.iterations, MinIterations)
	}
	return &Encoder{secret: []byte(secret), keyFactory: s.keyFactory, prf: prf, cipher: s.cipher, mode: m,
		keyLength: s.keyLength, iterations: s.iterations, random: s.random}, nil
}

// checkKeyLength checks that a key of bits bits, which the JDK truncates
// to whole bytes, is an AES key.
func checkKeyLength(bits int) error {
	switch bits / 8 {
	case 16, 24, 32:
		return nil
	}
	return fieldError(ErrMalformed, fieldKeyLength, fmt.Sprintf("%d bits is no AES key length", bits))
}

// String describes e's settings, never its secret.
func (e *Encoder) String() string {
	if e == nil {
		return "passwordencoder.Encoder(nil: plain text)"
	}
	return fmt.Sprintf("passwordencoder.Encoder{keyFactory: %s, cipher: %s, keyLength: %d, iterations: %d, secret: redacted}",
		e.keyFactory, e.cipher, e.keyLength, e.iterations)
}

// GoString is String, so that %#v does not print the secret either.
func (e *Encoder) GoString() string { return e.String() }

// LogValue logs e's settings, never its secret.
func (e *Encoder) LogValue() slog.Value {
	if e == nil {
		return slog.StringValue("plain text")
	}
	return slog.GroupValue(slog.String("keyFactory", e.keyFactory), slog.String("cipher", e.cipher),
		slog.Int("keyLength", e.keyLength), slog.Int("iterations", e.iterations))
}

// Encode encrypts password with a new random salt and initialization
// vector and returns it as Kafka stores it, in Kafka's field order. Two
// encodings of one password differ; both decode to it.
func (e *Encoder) Encode(password string) (string, error) {
	if !utf8.ValidString(password) {
		return "", fmt.Errorf("passwordencoder: %w", ErrInvalidPassword)
	}
	if e == nil {
		return password, nil
	}
	salt, err := e.randomBytes(saltSize)
	if err != nil {
		return "", err
	}
	block, err := aes.NewCipher(e.key(e.prf, salt, e.iterations, e.keyLength))
	if err != nil {
		return "", fmt.Errorf("passwordencoder: %w: %v", ErrInvalidSetting, err)
	}
	fields := map[string]string{
		fieldKeyFactory: e.keyFactory, fieldCipher: e.cipher, fieldKeyLength: strconv.Itoa(e.keyLength),
		fieldSalt: b64(salt), fieldIterations: strconv.Itoa(e.iterations), fieldLength: strconv.Itoa(javaLength(password)),
	}
	order := []string{fieldKeyFactory, fieldCipher, fieldKeyLength, fieldSalt, fieldIterations, fieldEncrypted, fieldLength}
	enc, params, err := e.encrypt(block, []byte(password))
	if err != nil {
		return "", err
	}
	fields[fieldEncrypted] = b64(enc)
	paramKeys := make([]string, 0, len(params))
	for _, p := range params {
		fields[p[0]] = p[1]
		paramKeys = append(paramKeys, p[0])
	}
	order = append(order, jvm.HashMapOrder(paramKeys)...)
	return formatCSVMap(jvm.HashMapOrder(order), fields), nil
}

// encrypt encrypts plain with e's cipher and a new initialization vector,
// returning the parameters Kafka stores with it, as name-value pairs in
// the order Kafka puts them into their map.
func (e *Encoder) encrypt(block cipher.Block, plain []byte) ([]byte, [][2]string, error) {
	if e.mode == modeGCM {
		iv, err := e.randomBytes(gcmIVSize)
		if err != nil {
			return nil, nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, nil, err
		}
		return aead.Seal(nil, iv, plain, nil), [][2]string{{fieldIV, b64(iv)}, {fieldTagLength, strconv.Itoa(gcmTagBits)}}, nil
	}
	iv, err := e.randomBytes(aes.BlockSize)
	if err != nil {
		return nil, nil, err
	}
	return encryptCBC(block, iv, plain), [][2]string{{fieldIV, b64(iv)}}, nil
}

// randomBytes returns n random bytes.
func (e *Encoder) randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(e.random, b); err != nil {
		return nil, fmt.Errorf("passwordencoder: random bytes: %w", err)
	}
	return b, nil
}

// key derives the AES key from e's secret as the JDK's PBKDF2 key
// factories do: the secret's UTF-8 bytes, keyLength/8 bytes of output.
func (e *Encoder) key(prf func() hash.Hash, salt []byte, iterations, keyLength int) []byte {
	return pbkdf2.Key(e.secret, salt, iterations, keyLength/8, prf)
}
