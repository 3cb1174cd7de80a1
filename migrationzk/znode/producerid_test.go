package znode

import (
	"bytes"
	"fmt"
	"testing"
)

// goldenProducerIDBlock is the reference's example (KAFKA-DUALWRITE.md,
// section 3): the block the migration writes for the next id 6000.
const goldenProducerIDBlock = `{"version":1,"broker":-1,"block_start":"6000","block_end":"6999"}`

func TestProducerIDBlockGolden(t *testing.T) {
	tests := []struct {
		b    ProducerIDBlock
		json string
	}{
		{ProducerIDBlock{BrokerID: -1, BlockStart: 6000, BlockEnd: 6999}, goldenProducerIDBlock},
		// A ZooKeeper-mode broker's first block.
		{ProducerIDBlock{BrokerID: 2, BlockStart: 0, BlockEnd: 999}, `{"version":1,"broker":2,"block_start":"0","block_end":"999"}`},
		{ProducerIDBlock{BrokerID: -2147483648, BlockStart: 9223372036854775806, BlockEnd: 9223372036854775807}, `{"version":1,"broker":-2147483648,"block_start":"9223372036854775806","block_end":"9223372036854775807"}`},
		{ProducerIDBlock{BrokerID: 1, BlockStart: 5, BlockEnd: 5}, `{"version":1,"broker":1,"block_start":"5","block_end":"5"}`},
	}
	for _, tt := range tests {
		if got := string(tt.b.Encode()); got != tt.json {
			t.Errorf("%+v.Encode() =\n%s\nwant\n%s", tt.b, got, tt.json)
		}
		got, err := DecodeProducerIDBlock([]byte(tt.json))
		if err != nil || got != tt.b {
			t.Errorf("DecodeProducerIDBlock(%s) = %+v, %v; want %+v", tt.json, got, err, tt.b)
		}
	}
}

// Kafka's testReadMigrateAndWriteProducerId: the migration writes the
// block for 6000, and the next id handed out after it is 7000.
func TestMigrationProducerIDBlock(t *testing.T) {
	b := MigrationProducerIDBlock(6000)
	if want := (ProducerIDBlock{BrokerID: -1, BlockStart: 6000, BlockEnd: 6999}); b != want {
		t.Fatalf("MigrationProducerIDBlock(6000) = %+v, want %+v", b, want)
	}
	if string(b.Encode()) != goldenProducerIDBlock {
		t.Errorf("Encode = %s, want %s", b.Encode(), goldenProducerIDBlock)
	}
	if got := b.NextBlockFirstID(); got != 7000 {
		t.Errorf("NextBlockFirstID = %d, want 7000", got)
	}
	if got := (ProducerIDBlock{BlockStart: 0, BlockEnd: 0}).NextBlockFirstID(); got != 1 {
		t.Errorf("NextBlockFirstID of [0, 0] = %d, want 1", got)
	}
}

func TestProducerIDBlockDecodeLenient(t *testing.T) {
	want := ProducerIDBlock{BrokerID: -1, BlockStart: 6000, BlockEnd: 6999}
	for _, in := range []string{
		`{"block_end":"6999","block_start":"6000","broker":-1,"version":1}`,
		`{"version":1,"broker":-1,"block_start":"6000","block_end":"6999","extra":[1]}`,
		" { \"version\" : 1 , \"broker\" : -1 , \"block_start\" : \"6000\" , \"block_end\" : \"6999\" } ",
		`{"version":1,"broker":-1,"block_start":"006000","block_end":"\u0036999"}`,
	} {
		got, err := DecodeProducerIDBlock([]byte(in))
		if err != nil || got != want {
			t.Errorf("DecodeProducerIDBlock(%s) = %+v, %v; want %+v", in, got, err, want)
		}
	}
}

func TestDecodeProducerIDBlockBad(t *testing.T) {
	g := goldenProducerIDBlock
	tests := commonBad(g, "broker")
	tests = append(tests, typeBad(t, g, "broker", "-1", tooBig32)...)
	in := func(name, old, new string, reason error, field string) badInput {
		return badInput{name, replace(t, g, old, new), reason, field}
	}
	start, end := `"block_start":"6000"`, `"block_end":"6999"`
	tests = append(tests,
		in("block_start missing", start+",", "", ErrMissingField, "block_start"),
		in("block_start number", start, `"block_start":6000`, ErrWrongType, "block_start"),
		in("block_start null", start, `"block_start":null`, ErrWrongType, "block_start"),
		in("block_start empty", start, `"block_start":""`, ErrWrongType, "block_start"),
		in("block_start space", start, `"block_start":" 6000"`, ErrWrongType, "block_start"),
		in("block_start fraction", start, `"block_start":"6000.0"`, ErrWrongType, "block_start"),
		in("block_start too big", start, `"block_start":"`+tooBig64+`"`, ErrOutOfRange, "block_start"),
		in("block_start negative", start, `"block_start":"-1"`, ErrOutOfRange, "block_start"),
		in("block_end missing", ","+end, "", ErrMissingField, "block_end"),
		in("block_end number", end, `"block_end":6999`, ErrWrongType, "block_end"),
		in("block_end letters", end, `"block_end":"x"`, ErrWrongType, "block_end"),
		in("block_end too big", end, `"block_end":"`+tooBig64+`"`, ErrOutOfRange, "block_end"),
		in("block_end before start", end, `"block_end":"5999"`, ErrOutOfRange, "block_end"),
		in("block_end far before start", end, `"block_end":"-9223372036854775808"`, ErrOutOfRange, "block_end"),
		in("block too large", end, `"block_end":"2147489647"`, ErrOutOfRange, "block_end"),
	)
	for _, in := range tests {
		got, err := DecodeProducerIDBlock(in.data)
		if got != (ProducerIDBlock{}) {
			t.Errorf("%s: decoded %+v along with the error", in.name, got)
		}
		checkDecodeError(t, err, ProducerIDBlockPath, in)
	}
	// The largest block Kafka can read holds 2^31-1 ids.
	largest := replace(t, g, end, `"block_end":"2147489646"`)
	if got, err := DecodeProducerIDBlock(largest); err != nil || got.BlockEnd-got.BlockStart+1 != 2147483647 {
		t.Errorf("DecodeProducerIDBlock(%s) = %+v, %v", largest, got, err)
	}
}

func TestProducerIDBlockAppendEncode(t *testing.T) {
	b := ProducerIDBlock{BrokerID: -2147483648, BlockStart: -9223372036854775808, BlockEnd: -9223372036854775808}
	enc := b.Encode()
	if got := b.AppendEncode([]byte("prefix:")); string(got) != "prefix:"+string(enc) {
		t.Errorf("AppendEncode = %q, want prefix:%q", got, enc)
	}
	if len(enc) > maxProducerIDBlockLen {
		t.Errorf("len %d > %d", len(enc), maxProducerIDBlockLen)
	}
	dst := make([]byte, 0, 128)
	if n := testing.AllocsPerRun(100, func() { dst = b.AppendEncode(dst[:0]) }); n != 0 {
		t.Errorf("AppendEncode allocates %v times per run, want 0", n)
	}
}

func FuzzDecodeProducerIDBlock(f *testing.F) {
	seeds := append(jsonSeeds(),
		goldenProducerIDBlock,
		`{"version":1,"broker":-1,"block_start":"6000","block_end":"5999"}`,
		`{"version":1,"broker":-1,"block_start":"-5","block_end":"5"}`,
		`{"version":1,"broker":-1,"block_start":"0","block_end":"2147483646"}`,
		`{"version":1,"broker":-1,"block_start":6000,"block_end":"6999"}`,
	)
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := DecodeProducerIDBlock(data)
		if err != nil {
			checkFuzzError(t, err, ProducerIDBlockPath, data)
			if b != (ProducerIDBlock{}) {
				t.Fatalf("decoded %+v along with error %v", b, err)
			}
			return
		}
		checkAccepted(t, data)
		if b.BlockStart < 0 || b.BlockEnd < b.BlockStart || b.BlockEnd-b.BlockStart >= 1<<31-1 {
			t.Fatalf("accepted block %+v", b)
		}
		enc := b.Encode()
		b2, err := DecodeProducerIDBlock(enc)
		if err != nil || b2 != b {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", b, b2, err)
		}
		if enc2 := b2.Encode(); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, enc2)
		}
	})
}

func FuzzProducerIDBlockRoundTrip(f *testing.F) {
	f.Add(int32(-1), int64(6000), uint32(999))
	f.Add(int32(2147483647), int64(0), uint32(0))
	f.Add(int32(-2147483648), int64(9223372036854775807), uint32(0))
	f.Fuzz(func(t *testing.T, broker int32, start int64, span uint32) {
		if start < 0 {
			start = -(start + 1)
		}
		span %= 1<<31 - 1
		end := start + int64(span)
		if end < start {
			end = start
		}
		b := ProducerIDBlock{BrokerID: broker, BlockStart: start, BlockEnd: end}
		enc := b.Encode()
		if want := fmt.Sprintf(`{"version":1,"broker":%d,"block_start":"%d","block_end":"%d"}`, broker, start, end); string(enc) != want {
			t.Fatalf("Encode = %s, want %s", enc, want)
		}
		got, err := DecodeProducerIDBlock(enc)
		if err != nil || got != b {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", b, got, err)
		}
	})
}
