package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// kraftExportReport is the json output of kraft export: on stdout with
// --output FILE, on stderr when the image itself goes to stdout.
type kraftExportReport struct {
	exportReport
	// Metadata is the metadata directory or file given; Image what the
	// replay reached.
	Metadata string     `json:"metadata"`
	Image    replayView `json:"image"`
}

// setupKRaftExport registers kraft export's flags, those of export and
// --at, and returns what runs it. It reads no ZooKeeper.
func setupKRaftExport(a *app, fs *flag.FlagSet) runFunc {
	var f exportFlags
	f.register(fs, "write password configs and SCRAM credentials as KRaft holds them (password configs in plain text), "+
		"for a backup Sync can restore through a Client with a password encoder")
	at := offsetFlag()
	fs.Var(&at, "at", "the image at this `offset` of the metadata log, instead of at its end")
	return func(ctx context.Context, args []string) int {
		if err := a.readyToExport(f, oneMetadataPath(args)); err != nil {
			return a.fail(err)
		}
		return a.kraftExport(ctx, args[0], at, f)
	}
}

// kraftExport replays the metadata at path and writes its image as f
// says: redacted unless --include-secrets.
func (a *app) kraftExport(ctx context.Context, path string, at wholeFlag, f exportFlags) int {
	r, err := replayMetadata(ctx, path, at)
	if err != nil {
		return a.fail(err)
	}
	img := r.Image
	img.Secrets = dualwrite.SecretsPlain
	if err := a.writeExport(img, f.file, f.secrets, "in plain text, as KRaft holds them"); err != nil {
		return a.fail(err)
	}
	rep := kraftExportReport{exportReport: exportReport{header: a.header(), File: f.file, Topics: len(img.Topics), Partitions: countPartitions(img),
		Redacted: !f.secrets}, Metadata: path, Image: viewReplay(r)}
	if f.secrets {
		rep.Passwords = string(dualwrite.SecretsPlain)
	}
	return a.emit(rep, nil, func() {
		if f.file != "" {
			fmt.Fprintf(a.stderr, "migrationzk kraft export: wrote %s: KRaft's image at offset %d (epoch %d, %s), %s, %s\n", f.file, r.Offset, r.Epoch, r.MigrationState,
				pluralVerb(rep.Topics, "topic", "topics"), pluralVerb(rep.Partitions, "partition", "partitions"))
		}
	})
}
