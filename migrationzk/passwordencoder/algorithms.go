package passwordencoder

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"strings"
)

// Key factory names Kafka's password encoder takes from
// password.encoder.keyfactory.algorithm, as the JDK's SunJCE provider
// names them. Names are matched without regard to case, as the JDK
// matches them.
const (
	PBKDF2WithHmacSHA1   = "PBKDF2WithHmacSHA1"
	PBKDF2WithHmacSHA224 = "PBKDF2WithHmacSHA224"
	PBKDF2WithHmacSHA256 = "PBKDF2WithHmacSHA256"
	PBKDF2WithHmacSHA384 = "PBKDF2WithHmacSHA384"
	PBKDF2WithHmacSHA512 = "PBKDF2WithHmacSHA512"
)

// Cipher transformations this package implements, as
// password.encoder.cipher.algorithm names them.
const (
	AESCBC = "AES/CBC/PKCS5Padding"
	AESGCM = "AES/GCM/NoPadding"
)

// keyFactoryHash returns the HMAC hash of the PBKDF2 key factory name.
func keyFactoryHash(name string) (func() hash.Hash, error) {
	switch strings.ToUpper(name) {
	case strings.ToUpper(PBKDF2WithHmacSHA1):
		return sha1.New, nil
	case strings.ToUpper(PBKDF2WithHmacSHA224):
		return sha256.New224, nil
	case strings.ToUpper(PBKDF2WithHmacSHA256):
		return sha256.New, nil
	case strings.ToUpper(PBKDF2WithHmacSHA384):
		return sha512.New384, nil
	case strings.ToUpper(PBKDF2WithHmacSHA512):
		return sha512.New, nil
	}
	return nil, fmt.Errorf("passwordencoder: %w: key factory %q", ErrUnsupportedAlgorithm, name)
}

// mode is a block cipher mode of AES.
type mode int

const (
	modeCBC mode = iota + 1
	modeGCM
)

// gcmPrefix is the prefix by which Kafka's encoder recognises a GCM
// cipher setting, case included, to choose how it stores the cipher's
// parameters.
const gcmPrefix = "AES/GCM/"

// parseCipher returns the mode of a cipher transformation as the JDK reads
// it: three '/'-separated parts, the mode and padding trimmed and matched
// without regard to case. The algorithm part must be "AES" without
// surrounding space, since Kafka also names the key after it.
func parseCipher(transformation string) (mode, error) {
	parts := strings.SplitN(transformation, "/", 3)
	if len(parts) == 3 && strings.EqualFold(parts[0], "AES") {
		m, p := strings.ToUpper(javaTrim(parts[1])), strings.ToUpper(javaTrim(parts[2]))
		switch {
		case m == "CBC" && p == "PKCS5PADDING":
			return modeCBC, nil
		case m == "GCM" && p == "NOPADDING":
			return modeGCM, nil
		}
	}
	return 0, fmt.Errorf("passwordencoder: %w: cipher %q: want %s or %s", ErrUnsupportedAlgorithm, transformation, AESCBC, AESGCM)
}

// configuredMode returns the mode of the configured cipher, refusing a
// GCM cipher that Kafka's encoder would not recognise as one (it looks
// for the exact prefix "AES/GCM/") and so cannot encode with.
func configuredMode(transformation string) (mode, error) {
	m, err := parseCipher(transformation)
	if err == nil && (m == modeGCM) != strings.HasPrefix(transformation, gcmPrefix) {
		return 0, fmt.Errorf("passwordencoder: %w: cipher %q: Kafka's encoder recognises AES/GCM only by the exact prefix %q",
			ErrUnsupportedAlgorithm, transformation, gcmPrefix)
	}
	return m, err
}

// gcmIVSize is the size of the initialization vector the JDK draws for
// AES/GCM; gcmTagBits the tag length it uses.
const (
	gcmIVSize  = 12
	gcmTagBits = 128
)

// newGCM returns an AES/GCM AEAD with the given tag length in bits and
// nonce size, as the JDK accepts them: tags of 96 to 128 bits in steps of
// 8. Go offers no tag shorter than 128 bits with a nonce other than 12
// bytes; Kafka never writes one.
func newGCM(block cipher.Block, tagBits, nonceSize int) (cipher.AEAD, error) {
	if tagBits%8 != 0 || tagBits < 96 || tagBits > 128 {
		return nil, fieldError(ErrMalformed, fieldTagLength, fmt.Sprintf("%d bits: want 96, 104, 112, 120 or 128", tagBits))
	}
	switch {
	case nonceSize == 0:
		return nil, fieldError(ErrMalformed, fieldIV, "empty")
	case nonceSize == gcmIVSize:
		return cipher.NewGCMWithTagSize(block, tagBits/8)
	case tagBits == gcmTagBits:
		return cipher.NewGCMWithNonceSize(block, nonceSize)
	}
	return nil, fieldError(ErrUnsupportedAlgorithm, fieldIV, fmt.Sprintf("%d bytes with a %d-bit tag", nonceSize, tagBits))
}

// encryptCBC encrypts plain with AES/CBC and PKCS#5 padding.
func encryptCBC(block cipher.Block, iv, plain []byte) []byte {
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	buf := make([]byte, len(plain)+pad)
	copy(buf, plain)
	for i := len(plain); i < len(buf); i++ {
		buf[i] = byte(pad)
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(buf, buf)
	return buf
}

// decryptCBC decrypts AES/CBC with PKCS#5 padding, failing as the JDK
// does on a length that is not a whole number of blocks and on padding
// that is not n bytes of value n, 1 <= n <= 16. Like the JDK, it decrypts
// an empty ciphertext to an empty plaintext, padding unchecked.
func decryptCBC(block cipher.Block, iv, enc []byte) ([]byte, error) {
	if len(iv) != aes.BlockSize {
		return nil, fieldError(ErrMalformed, fieldIV, fmt.Sprintf("%d bytes: want %d", len(iv), aes.BlockSize))
	}
	if len(enc) == 0 {
		return []byte{}, nil
	}
	if len(enc)%aes.BlockSize != 0 {
		return nil, fmt.Errorf("passwordencoder: %w", ErrWrongSecret)
	}
	buf := make([]byte, len(enc))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(buf, enc)
	pad := int(buf[len(buf)-1])
	if pad < 1 || pad > aes.BlockSize {
		return nil, fmt.Errorf("passwordencoder: %w", ErrWrongSecret)
	}
	for _, b := range buf[len(buf)-pad:] {
		if int(b) != pad {
			return nil, fmt.Errorf("passwordencoder: %w", ErrWrongSecret)
		}
	}
	return buf[:len(buf)-pad], nil
}
