package kraftmeta_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"testing"

	"github.com/kraftmigration/zkwriter/migrationzk/kraftmeta"
)

// imageSummary is the summary images.jsonl holds of the large scenario's
// images.
type imageSummary struct {
	TopicsSummary struct {
		TopicCount, PartitionCount, ReplicaCount, IsrCount int
		TopicsSha256                                       string
	} `json:"topicsSummary"`
	ConfigsSummary struct {
		ResourceCount, KeyCount int
		ConfigsSha256           string
	} `json:"configsSummary"`
	CanonicalImageSha256 string `json:"canonicalImageSha256"`
	CanonicalImageBytes  int    `json:"canonicalImageBytes"`
}

// sameSummary fails when r's canonical image does not hash as Kafka's.
func sameSummary(t *testing.T, what string, r *kraftmeta.Result, want *imageSummary) {
	t.Helper()
	image, topics, configs := neutralSections(r)
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	if got := sum(topics); got != want.TopicsSummary.TopicsSha256 {
		t.Errorf("%s: topics hash %s, want %s (%d topics)", what, got, want.TopicsSummary.TopicsSha256, len(r.Image.Topics))
	}
	if got := sum(configs); got != want.ConfigsSummary.ConfigsSha256 {
		t.Errorf("%s: configs hash %s, want %s", what, got, want.ConfigsSummary.ConfigsSha256)
	}
	if got := sum(image); got != want.CanonicalImageSha256 || len(image) != want.CanonicalImageBytes {
		t.Errorf("%s: image hash %s (%d bytes), want %s (%d bytes)", what, got, len(image), want.CanonicalImageSha256, want.CanonicalImageBytes)
	}
	partitions := 0
	for _, tp := range r.Image.Topics {
		partitions += len(tp.Partitions)
	}
	if len(r.Image.Topics) != want.TopicsSummary.TopicCount || partitions != want.TopicsSummary.PartitionCount {
		t.Errorf("%s: %d topics, %d partitions, want %d, %d", what, len(r.Image.Topics), partitions, want.TopicsSummary.TopicCount, want.TopicsSummary.PartitionCount)
	}
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }
