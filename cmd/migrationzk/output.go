package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// schemaVersion is the version of the JSON output's schema. It changes
// only when a field is removed or changes meaning; fields may be added.
const schemaVersion = 1

// emitJSON writes v as indented JSON on stdout: once, whatever else is
// emitted later, so that stdout holds exactly one JSON object.
func (a *app) emitJSON(v any) {
	if a.emitted {
		return
	}
	a.emitted = true
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		// The reports are plain structs; this cannot happen.
		fmt.Fprintf(a.stderr, "migrationzk: encode output: %v\n", err)
		return
	}
	_, _ = a.jsonOut.Write(b.Bytes())
}

// emit outputs report r: as JSON in json mode, else with print. It
// returns exitProblem when problems lists any, else exitOK.
func (a *app) emit(r any, problems []string, print func()) int {
	code := exitOK
	if len(problems) > 0 {
		code = exitProblem
	}
	if a.json() {
		a.emitJSON(r)
		return code
	}
	print()
	return code
}

// printf writes text output.
func (a *app) printf(format string, args ...any) {
	fmt.Fprintf(a.stdout, format, args...)
}

// field prints a labelled line, the label padded to width, and further
// lines indented under the value.
func (a *app) field(width int, label string, lines ...string) {
	for i, l := range lines {
		if i == 0 {
			a.printf("%-*s  %s\n", width, label, l)
		} else {
			a.printf("%-*s  %s\n", width, "", l)
		}
	}
}

// describeMigration says what /migration holds, one line per fact.
func describeMigration(v migrationView) []string {
	switch v.State {
	case stateAbsent:
		return []string{"absent: no migration has started (Kafka creates it when one does)"}
	case stateOK:
		c := v.Checkpoint
		return []string{
			fmt.Sprintf("version %d, modified %s", v.Version, v.Modified),
			fmt.Sprintf("metadata offset %d, metadata epoch %d, KRaft controller %d, KRaft controller epoch %d",
				c.KRaftMetadataOffset, c.KRaftMetadataEpoch, c.KRaftControllerID, c.KRaftControllerEpoch),
		}
	case stateNull, stateEmpty:
		return []string{
			fmt.Sprintf("version %d, modified %s", v.Version, v.Modified),
			fmt.Sprintf("%s data: Kafka 3.9 cannot parse it and retries forever; repair-null-migration fixes it", v.State),
		}
	}
	return []string{
		fmt.Sprintf("version %d, modified %s", v.Version, v.Modified),
		fmt.Sprintf("undecodable: %s", v.Error),
		fmt.Sprintf("data: %q", v.Data),
	}
}

// pluralVerb returns "1 <one>" or "<n> <many>", n with thousands
// separators.
func pluralVerb(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return commas(n) + " " + many
}

// labelWidth is the width of the longest label.
func labelWidth(labels ...string) int {
	w := 0
	for _, l := range labels {
		if len(l) > w {
			w = len(l)
		}
	}
	return w
}

// commas formats n with thousands separators.
func commas(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
