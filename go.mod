module github.com/kraftmigration/zkwriter

go 1.23.8

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/cenkalti/backoff/v4 v4.3.0
	github.com/go-zookeeper/zk v1.0.4
	github.com/jcmturner/gokrb5/v8 v8.4.4
	github.com/magiconair/properties v1.18.13
	github.com/pavlo-v-chernykh/keystore-go/v4 v4.5.0
	github.com/prometheus/client_golang v1.23.2
	github.com/prometheus/client_model v0.6.2
	github.com/prometheus/common v0.66.1
	github.com/twmb/franz-go v1.19.5
	github.com/twmb/franz-go/pkg/kmsg v1.11.2
	github.com/twmb/franz-go/pkg/sasl/kerberos v1.1.0
	go.uber.org/multierr v1.11.0
	go.yaml.in/yaml/v2 v2.4.2
	golang.org/x/crypto v0.41.0
	golang.org/x/sys v0.35.0
	software.sslmate.com/src/go-pkcs12 v0.7.4
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/hashicorp/go-uuid v1.0.3 // indirect
	github.com/jcmturner/aescts/v2 v2.0.0 // indirect
	github.com/jcmturner/dnsutils/v2 v2.0.0 // indirect
	github.com/jcmturner/gofork v1.7.6 // indirect
	github.com/jcmturner/rpc/v2 v2.0.3 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/kylelemons/godebug v1.1.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pierrec/lz4/v4 v4.1.22 // indirect
	github.com/prometheus/procfs v0.16.1 // indirect
	golang.org/x/net v0.43.0 // indirect
	google.golang.org/protobuf v1.36.8 // indirect
)
