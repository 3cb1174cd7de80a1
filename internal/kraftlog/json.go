package kraftlog

import (
	"encoding/base64"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kraftmigration/zkwriter/internal/jvm"
)

// AppendKafkaJSON appends msg, a record or control message of this
// package (or a pointer to one), as Kafka's generated JsonConverter writes
// it at version: the payload kafka-dump-log --cluster-metadata-decoder
// prints as "data". Fields the version lacks are left out, as are tagged
// fields at their default; uuids are Kafka's base64url text, bytes
// standard Base64, doubles as Java prints them. Unknown tagged fields are
// not written, as Kafka does not write them.
func AppendKafkaJSON(dst []byte, msg any, version int16) []byte {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	return appendStructJSON(dst, v, version)
}

// fieldSpec is what a field's kafka tag says.
type fieldSpec struct {
	name     string
	since    int16
	tagged   bool
	nullable bool
	def      string // the default of a tagged scalar, "" for none
}

func parseFieldSpec(tag string) (fieldSpec, bool) {
	if tag == "" || tag == "-" {
		return fieldSpec{}, false
	}
	parts := strings.Split(tag, ",")
	s := fieldSpec{name: parts[0]}
	for _, p := range parts[1:] {
		switch {
		case p == "nullable":
			s.nullable = true
		case strings.HasPrefix(p, "tag="):
			s.tagged = true
		case strings.HasPrefix(p, "default="):
			s.def = strings.TrimPrefix(p, "default=")
		case strings.HasPrefix(p, "v"):
			n, _ := strconv.Atoi(p[1:])
			s.since = int16(n)
		}
	}
	return s, true
}

func appendStructJSON(dst []byte, v reflect.Value, version int16) []byte {
	dst = append(dst, '{')
	first := true
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		spec, ok := parseFieldSpec(t.Field(i).Tag.Get("kafka"))
		if !ok || version < spec.since {
			continue
		}
		f := v.Field(i)
		if spec.tagged && atDefault(f, spec) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, spec.name)
		dst = append(dst, ':')
		dst = appendValueJSON(dst, f, version)
	}
	return append(dst, '}')
}

// atDefault reports whether a tagged field holds its default: null for a
// nullable one, empty for an array, else the default its tag names.
func atDefault(f reflect.Value, spec fieldSpec) bool {
	switch f.Kind() {
	case reflect.Slice, reflect.Pointer:
		if spec.nullable {
			return f.IsNil()
		}
		return f.Kind() == reflect.Slice && f.Len() == 0
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d, _ := strconv.ParseInt(spec.def, 10, 64)
		return f.Int() == d
	}
	return false
}

var uuidType = reflect.TypeOf(Uuid{})

func appendValueJSON(dst []byte, f reflect.Value, version int16) []byte {
	switch {
	case f.Type() == uuidType:
		return appendJSONString(dst, f.Interface().(Uuid).String())
	case f.Kind() == reflect.Pointer:
		if f.IsNil() {
			return append(dst, "null"...)
		}
		return appendValueJSON(dst, f.Elem(), version)
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Uint8:
		if f.IsNil() {
			return append(dst, "null"...)
		}
		return appendJSONString(dst, base64.StdEncoding.EncodeToString(f.Bytes()))
	case f.Kind() == reflect.Slice:
		if f.IsNil() {
			return append(dst, "null"...)
		}
		dst = append(dst, '[')
		for i := 0; i < f.Len(); i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValueJSON(dst, f.Index(i), version)
		}
		return append(dst, ']')
	case f.Kind() == reflect.Struct:
		return appendStructJSON(dst, f, version)
	case f.Kind() == reflect.String:
		return appendJSONString(dst, f.String())
	case f.Kind() == reflect.Bool:
		return strconv.AppendBool(dst, f.Bool())
	case f.Kind() == reflect.Float64:
		return append(dst, jvm.DoubleString(f.Float())...)
	case f.CanInt():
		return strconv.AppendInt(dst, f.Int(), 10)
	case f.CanUint():
		return strconv.AppendUint(dst, f.Uint(), 10)
	}
	return append(dst, "null"...)
}

// appendJSONString appends s quoted as Jackson quotes it: '"', '\\' and
// control characters escaped, everything else, non-ASCII included, as
// it is.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		case c < utf8.RuneSelf:
			dst = append(dst, c)
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			dst = append(dst, s[i:i+size]...)
			i += size
			continue
		}
		i++
	}
	return append(dst, '"')
}
