// Package passwordencoder encodes and decodes password configs as Kafka
// stores them in ZooKeeper when password.encoder.secret is set: the format
// of Kafka 3.9's EncryptingPasswordEncoder (server-common,
// org.apache.kafka.security), which ZooKeeper-mode brokers
// (DynamicBrokerConfig) and the migration's ZkConfigMigrationClient read
// and write.
//
// An encoded password is a comma-separated list of name:value pairs, in
// the iteration order of a java.util.HashMap:
//
//   - keyFactoryAlgorithm, cipherAlgorithm, keyLength and iterations: the
//     settings it was encoded with (password.encoder.keyfactory.algorithm,
//     .cipher.algorithm, .key.length, .iterations);
//   - salt: 256 random bytes, new for every encoding;
//   - encryptedPassword: the UTF-8 password encrypted with an AES key
//     derived from the secret and the salt by PBKDF2;
//   - passwordLength: the password's length in UTF-16 code units, which
//     decoding checks;
//   - initializationVector, and for AES/GCM authenticationTagLength in
//     bits.
//
// Byte strings are standard Base64 with padding. Decoding takes the key
// factory, cipher, key length and iterations stored with the password, as
// Kafka does, so a value written with other settings still decodes, with
// one exception Kafka has too: an encoder configured for AES/GCM reads
// only AES/GCM values, and one configured for another cipher reads no
// AES/GCM value.
//
// Which configs are passwords is decided by IsPasswordConfig, Kafka's rule.
// Without password.encoder.secret, Kafka's migration writes and reads
// password configs as plain text; a nil *Encoder stands for that.
package passwordencoder
