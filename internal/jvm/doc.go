// Package jvm reproduces the few Java behaviours that decide the bytes Kafka
// writes to ZooKeeper: String.hashCode and String.compareTo, the iteration
// order of java.util.HashMap and of the JDK 9+ java.util.Properties, the
// digits of Double.toString and java.net.URLEncoder.
//
// Java strings are sequences of UTF-16 code units. The functions here take
// Go strings and work on their UTF-16 encoding; a byte of a string that is
// not valid UTF-8 stands for U+FFFD, which is what a Java string decoded
// from those bytes would hold.
//
// The package is tested against a real JDK (see jdktest).
package jvm
