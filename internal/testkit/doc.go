// Package testkit holds, in its subpackages, what serves the tests, the
// benchmarks and the sandbox and nothing at run time: real servers started
// on loopback (zkserver for ZooKeeper, krb5kdc for an MIT KDC, promtest for
// Prometheus), the shared set-up of each security mechanism
// (securitytest), the KRaft fixtures' location (kraftfixtures), and must,
// which turns an error into a test's failure. The library's own test kit
// for its users is migrationzk/zktest.
package testkit
