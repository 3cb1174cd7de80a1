package scalaorder

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// decimals returns the partition ids "0" to "n-1".
func decimals(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = strconv.Itoa(i)
	}
	return keys
}

// splitIDs splits a space-separated list of keys.
func splitIDs(s string) []string { return strings.Fields(s) }

func TestJavaStringHash(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int32
	}{
		{"", 0},
		{"0", 48},
		{"10", 31*49 + 48},
		{"hello", 99162322},
		// A classic Java collision.
		{"Aa", 2112},
		{"BB", 2112},
		// Beyond the Basic Multilingual Plane: a surrogate pair,
		// 0xD83D*31 + 0xDE00.
		{"😀", 1772899},
		// Invalid UTF-8 counts as U+FFFD.
		{"\xff", 0xFFFD},
		// Wrap-around: 31^7 overflows.
		{"10721006", 771151007},
		{"81000710", 771151007},
		{"124090230", -1090881189},
	} {
		if got := javaStringHash(tt.s); got != tt.want {
			t.Errorf("javaStringHash(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func TestMutableHashMapTableLen(t *testing.T) {
	for _, tt := range []struct{ capacity, want int }{
		{16, 16}, {6, 8}, {5, 8}, {0, 8}, {-3, 8}, {9, 16}, {17, 32}, {1 << 40, 1 << 30},
	} {
		if got := mutableHashMapTableLen(tt.capacity); got != tt.want {
			t.Errorf("mutableHashMapTableLen(%d) = %d, want %d", tt.capacity, got, tt.want)
		}
	}
}

// orderTest is a key list and the iteration order expected after putting
// the keys in that order.
type orderTest struct {
	name string
	keys []string
	want []string
}

func checkOrders(t *testing.T, fn string, order func([]string) []string, tests []orderTest) {
	t.Helper()
	for _, tt := range tests {
		if got := order(tt.keys); !slices.Equal(got, tt.want) {
			t.Errorf("%s %s: %s(%q)\n got %q\nwant %q", fn, tt.name, fn, tt.keys, got, tt.want)
		}
	}
}

// Vectors the reference states for Scala 2.13 (KAFKA-DUALWRITE.md, 2.3 and
// 3): partition-id maps iterate "0" to "10" ascending up to 11 entries.
func TestMutableHashMapOrderReference(t *testing.T) {
	var tests []orderTest
	for _, n := range []int{1, 2, 3, 5, 11} {
		tests = append(tests, orderTest{strconv.Itoa(n) + " dense ids", decimals(n), decimals(n)})
	}
	// The reference's topic znode example: partitions "0", "1".
	tests = append(tests, orderTest{"topic example", []string{"1", "0"}, []string{"0", "1"}})
	checkOrders(t, "MutableHashMapOrder", MutableHashMapOrder, tests)

	// "The 12th grows the table to 32 and the order changes."
	if got := MutableHashMapOrder(decimals(12)); slices.Equal(got, decimals(12)) {
		t.Errorf("12 dense ids still ascending: %q", got)
	}
}

// Vectors derived by hand from the algorithm. Hashes of decimal strings:
// "0" to "9" are 48 to 57; "1d" is 1567+d for d < 10 ("10" = 0x61F,
// "11" = 0x620); "2d" is 1598+d ("20" = 0x63E, "22" = 0x640). Strings this
// short have no bits above 16, so the spread hash is the hashCode.
func TestMutableHashMapOrderDerived(t *testing.T) {
	checkOrders(t, "MutableHashMapOrder", MutableHashMapOrder, []orderTest{
		// The 12th put finds size+1 = 12 >= 0.75*16 and doubles the table
		// to 32: "11" (0x620) lands in bucket 0, "0"-"9" in 16-25, "10"
		// (0x61F) in 31.
		{"12 dense ids", decimals(12), splitIDs("11 0 1 2 3 4 5 6 7 8 9 10")},
		// "12" (0x621) goes to bucket 1.
		{"13 dense ids", decimals(13), splitIDs("11 12 0 1 2 3 4 5 6 7 8 9 10")},
		// 23 entries still fit 32 buckets (23+1 < 24 at the 23rd put).
		// Bucket 0 holds "11" (0x620) and "22" (0x640), bucket 31 "10"
		// (0x61F) and "21" (0x63F), each sorted by hash; "12"-"19" fill
		// 1-8, "0"-"9" 16-25 and "20" (0x63E) 30.
		{"23 dense ids", decimals(23), splitIDs("11 22 12 13 14 15 16 17 18 19 0 1 2 3 4 5 6 7 8 9 20 10 21")},
		// The 24th put doubles to 64: "22" and "23" in 0 and 1, "10" in
		// 31, "11"-"19" in 32-40, "0"-"9" in 48-57, "20" and "21" in 62
		// and 63.
		{"24 dense ids", decimals(24), splitIDs("22 23 10 11 12 13 14 15 16 17 18 19 0 1 2 3 4 5 6 7 8 9 20 21")},
		// "24" (1602) goes to bucket 2.
		{"25 dense ids", decimals(25), splitIDs("22 23 24 10 11 12 13 14 15 16 17 18 19 0 1 2 3 4 5 6 7 8 9 20 21")},
		// 47 entries fit 64 buckets. With "3d" = 1629+d and "4d" =
		// 1660+d, buckets 0-2 hold "22"/"44", "23"/"45", "24"/"46", and
		// 31-38 "10"/"32" to "17"/"39", 62 and 63 "20"/"42" and
		// "21"/"43", each pair sorted by hash.
		{"47 dense ids", decimals(47), splitIDs("22 44 23 45 24 46 25 26 27 28 29 30 31 10 32 11 33 12 34 13 35 14 36 15 37 16 38 17 39 18 19 0 1 2 3 4 5 6 7 8 9 40 41 20 42 21 43")},
		// The 48th put doubles to 128: "44"-"47" in 0-3, "10"-"19" in
		// 31-40, "0"-"9" in 48-57, "20"-"29" in 62-71, "30"-"39" in
		// 93-102, "40"-"43" in 124-127.
		{"48 dense ids", decimals(48), splitIDs("44 45 46 47 10 11 12 13 14 15 16 17 18 19 0 1 2 3 4 5 6 7 8 9 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43")},
	})
}

// Vectors derived by hand: sparse ids, the order inside a bucket,
// collisions and repeated keys.
func TestMutableHashMapOrderBuckets(t *testing.T) {
	checkOrders(t, "MutableHashMapOrder", MutableHashMapOrder, []orderTest{
		// Sparse ids in 16 buckets: "0" 48 -> 0, "100" 48625 (0xBDF1)
		// -> 1, "5" 53 -> 5, "17" 1574 (0x626) -> 6.
		{"sparse ids", splitIDs("0 5 17 100"), splitIDs("0 100 5 17")},
		{"sparse ids reversed", splitIDs("100 17 5 0"), splitIDs("0 100 5 17")},
		// Inside a bucket, the hash decides, not the insertion order:
		// "0" (48) and "11" (1568) share bucket 0 of 16.
		{"bucket sorted by hash", splitIDs("11 0"), splitIDs("0 11")},
		{"bucket sorted by hash, other insertion", splitIDs("0 11"), splitIDs("0 11")},
		// As a signed int: "1700040" spreads to -2136582432, also bucket
		// 0 of 16, and comes before "0".
		{"bucket sorted by signed hash", splitIDs("0 1700040"), splitIDs("1700040 0")},
		// Equal hashes keep insertion order: "Aa" and "BB" both hash to
		// 2112, as do the partition ids 10721006 and 81000710
		// (771151007 = 0x2DF6D49F, spread 0x2DF6F969, bucket 9 of 16).
		{"collision", splitIDs("Aa BB"), splitIDs("Aa BB")},
		{"collision reversed", splitIDs("BB Aa"), splitIDs("BB Aa")},
		{"colliding partition ids", splitIDs("81000710 0 10721006"), splitIDs("0 81000710 10721006")},
		{"colliding partition ids reversed", splitIDs("10721006 0 81000710"), splitIDs("0 10721006 81000710")},
		// A repeated key keeps its first place.
		{"repeated key", splitIDs("1 0 1"), splitIDs("0 1")},
		// The growth check precedes the lookup, so re-putting a present
		// key can grow the table: 11 keys fit 16 buckets, where "11"
		// follows "0" in bucket 0; the 12th put, of "5" again, doubles
		// the table and "11" moves to the front.
		{"11 keys in 16 buckets", splitIDs("0 1 2 3 4 5 6 7 8 9 11"), splitIDs("0 11 1 2 3 4 5 6 7 8 9")},
		{"re-put grows the table", splitIDs("0 1 2 3 4 5 6 7 8 9 11 5"), splitIDs("11 0 1 2 3 4 5 6 7 8 9")},
		{"empty", nil, []string{}},
	})
}

// The topic znode's outer map is mutable.Map(version, partitions,
// adding_replicas, removing_replicas), created with capacity
// floor(5/0.75) = 6 (8 buckets), then topic_id is added. The order is the
// reference's (KAFKA-DUALWRITE.md, 2.3 and 3); without topic_id (a topic
// without an id) the other keys keep their relative order, since with a
// fixed table length the order depends on the key set only (derived).
func TestMutableHashMapOrderTopicZNode(t *testing.T) {
	checkOrders(t, "MutableHashMapOrderWithCapacity(6)", func(keys []string) []string {
		return MutableHashMapOrderWithCapacity(6, keys)
	}, []orderTest{
		{"reference", splitIDs("version partitions adding_replicas removing_replicas topic_id"), splitIDs("partitions topic_id adding_replicas removing_replicas version")},
		{"no topic_id", splitIDs("version partitions adding_replicas removing_replicas"), splitIDs("partitions adding_replicas removing_replicas version")},
	})
}

// Vectors of the reference for Scala 2.13 immutable.HashMap: /migration
// and the delegation token (KAFKA-DUALWRITE.md, 2.3 and 3), the partition
// state with 5 and 6 keys (KAFKA-FACTS.md). The input orders are those in
// which Kafka builds the maps.
func TestImmutableHashMapOrderReference(t *testing.T) {
	checkOrders(t, "ImmutableHashMapOrder", ImmutableHashMapOrder, []orderTest{
		{"/migration", splitIDs("kraft_controller_id kraft_controller_epoch kraft_metadata_offset kraft_metadata_epoch version"), splitIDs("version kraft_metadata_offset kraft_controller_id kraft_metadata_epoch kraft_controller_epoch")},
		{"delegation token", splitIDs("version owner tokenRequester renewers issueTimestamp maxTimestamp expiryTimestamp tokenId"), splitIDs("issueTimestamp renewers tokenRequester tokenId owner expiryTimestamp maxTimestamp version")},
		{"partition state", splitIDs("version leader leader_epoch controller_epoch isr"), splitIDs("controller_epoch leader version leader_epoch isr")},
		{"partition state recovering", splitIDs("version leader leader_epoch controller_epoch isr leader_recovery_state"), splitIDs("controller_epoch leader version leader_recovery_state leader_epoch isr")},
	})
}

// The reference gives the level-0 slots of the /migration keys, and the
// level-1 slots of the two sharing slot 6.
func TestChampSlotsMigration(t *testing.T) {
	for _, tt := range []struct {
		key   string
		level int
		want  int
	}{
		{"version", 0, 16},
		{"kraft_metadata_offset", 0, 19},
		{"kraft_controller_id", 0, 29},
		{"kraft_metadata_epoch", 0, 6},
		{"kraft_controller_epoch", 0, 6},
		{"kraft_metadata_epoch", 1, 0},
		{"kraft_controller_epoch", 1, 4},
	} {
		if got := champSlot(improveHash(javaStringHash(tt.key)), tt.level); got != tt.want {
			t.Errorf("slot of %q at level %d = %d, want %d", tt.key, tt.level, got, tt.want)
		}
	}
}

// Vectors derived by hand from the algorithm.
func TestImmutableHashMapOrderDerived(t *testing.T) {
	checkOrders(t, "ImmutableHashMapOrder", ImmutableHashMapOrder, []orderTest{
		// The order depends on the key set only.
		{"any insertion order", splitIDs("version kraft_controller_epoch kraft_metadata_epoch kraft_controller_id kraft_metadata_offset"), splitIDs("version kraft_metadata_offset kraft_controller_id kraft_metadata_epoch kraft_controller_epoch")},
		// A repeated key keeps its place.
		{"repeated key", splitIDs("version kraft_metadata_offset version kraft_controller_id kraft_metadata_epoch kraft_controller_epoch"), splitIDs("version kraft_metadata_offset kraft_controller_id kraft_metadata_epoch kraft_controller_epoch")},
		// "Aa" and "BB" share every slot and end in a collision node, in
		// insertion order, after the payload key "version" of the root.
		{"collision", splitIDs("Aa version BB"), splitIDs("version Aa BB")},
		{"collision reversed", splitIDs("BB Aa version"), splitIDs("version BB Aa")},
		{"single key", splitIDs("version"), splitIDs("version")},
		{"empty", nil, []string{}},
	})
}

func TestImproveHash(t *testing.T) {
	// improve(0) = 0 + ~0 = -1; -1 >>> 14 = 0x3FFFF, so h = ^0x3FFFF;
	// h += h << 4; h ^= h >>> 10, on 32 bits.
	h := ^uint32(0x3FFFF)
	h += h << 4
	h ^= h >> 10
	if got := improveHash(0); got != int32(h) {
		t.Errorf("improveHash(0) = %d, want %d", got, int32(h))
	}
}
