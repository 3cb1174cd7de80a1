package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kraftmigration/zkwriter/migrationzk"
	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
	"github.com/kraftmigration/zkwriter/migrationzk/znode"
)

// exportReport is the json output of export: on stdout with --output
// FILE, on stderr when the image itself goes to stdout.
type exportReport struct {
	header
	// File is the file written; empty when the image went to stdout.
	File        string `json:"file,omitempty"`
	Topics      int    `json:"topics"`
	Partitions  int    `json:"partitions"`
	Undecodable int    `json:"undecodable"`
	// Redacted is false for an export made with --include-secrets.
	Redacted bool `json:"redacted"`
	// Passwords is the form of the password values of an export made with
	// --include-secrets: "plain" or "encoded".
	Passwords string `json:"passwords,omitempty"`
}

// setupExport registers export's flags, --output FILE and
// --include-secrets, and returns what runs it: no arguments; "text" and
// "json" are refused as file names, the global flag's values, and so is a
// directory; secrets go only to a file.
func setupExport(a *app, fs *flag.FlagSet) runFunc {
	var f exportFlags
	f.register(fs, "write password configs and SCRAM credentials as read (decoded when a password encoder is given), for a backup Sync can restore")
	return func(ctx context.Context, args []string) int {
		if err := a.readyToExport(f, noArgs(args)); err != nil {
			return a.fail(err)
		}
		return a.export(ctx, f.file, f.secrets)
	}
}

// exportFlags are the flags of the commands that write an image: --output
// FILE and --include-secrets.
type exportFlags struct {
	file    string
	secrets bool
}

// register registers the flags on fs; secrets says what --include-secrets
// writes.
func (f *exportFlags) register(fs *flag.FlagSet, secrets string) {
	fs.StringVar(&f.file, "output", "", "write the image to `file` (created with mode 0600, replaced whole) instead of stdout; the image is JSON whatever the global --output")
	fs.BoolVar(&f.secrets, "include-secrets", false, secrets+"; needs --output")
}

// readyToExport checks the global flags, then argsErr, the arguments'
// error, then the export flags, once the json output goes where it must:
// to stderr when stdout carries the image.
func (a *app) readyToExport(f exportFlags, argsErr error) error {
	if f.file == "" {
		a.jsonOut = a.stderr // stdout carries the image
	}
	if err := a.ready(); err != nil {
		return err
	}
	if argsErr != nil {
		return argsErr
	}
	return checkExportFile(f.file, f.secrets)
}

// checkExportFile refuses an --output that cannot be the file to write,
// and --include-secrets without one.
func checkExportFile(file string, secrets bool) error {
	switch {
	case file == "text" || file == "json":
		return usageError{fmt.Errorf("--output names the file to write (the image is always JSON); for a file named %s, say ./%s", file, file)}
	case file == "" && secrets:
		return usageError{errors.New("--include-secrets writes secrets only to a file: give --output FILE (created with mode 0600)")}
	case file == "":
		return nil
	}
	if fi, err := os.Stat(file); err == nil && fi.IsDir() {
		return usageError{fmt.Errorf("--output %s is a directory: name the file to write, such as %s", file, filepath.Join(file, "export.json"))}
	}
	return nil
}

// export reads the live tree and writes its image to file, or stdout when
// file is "": redacted unless secrets is set. Only a complete image is
// written; on a failure to read nothing is.
func (a *app) export(ctx context.Context, file string, secrets bool) int {
	img, err := a.readLive(ctx)
	if err != nil {
		return a.fail(err)
	}
	if err := a.writeExport(img, file, secrets, passwordForm(img.Secrets)); err != nil {
		return a.fail(err)
	}
	if !secrets {
		img = img.Redacted()
	}
	r := exportReport{header: a.header(), File: file, Topics: len(img.Topics), Partitions: countPartitions(img), Undecodable: len(img.Undecodable),
		Redacted: img.Secrets == dualwrite.SecretsRedacted}
	if !r.Redacted {
		r.Passwords = string(img.Secrets)
	}
	if a.json() {
		a.emitJSON(r)
		return exitOK
	}
	if file != "" {
		fmt.Fprintf(a.stderr, "migrationzk export: wrote %s: %s, %s, %s\n", file,
			pluralVerb(r.Topics, "topic", "topics"), pluralVerb(r.Partitions, "partition", "partitions"), commas(r.Undecodable)+" undecodable")
	}
	return exitOK
}

// writeExport writes img to file, or stdout when file is "": redacted
// unless secrets is set, and then with a warning on stderr saying that it
// holds them, its password configs in form.
func (a *app) writeExport(img dualwrite.Image, file string, secrets bool, form string) error {
	if !secrets {
		img = img.Redacted()
	}
	if file == "" {
		if err := img.WriteJSON(a.stdout); err != nil {
			return fmt.Errorf("write the image: %w", err)
		}
	} else if err := writeImageFile(file, img); err != nil {
		return err
	}
	if secrets {
		fmt.Fprintf(a.stderr, "migrationzk %s: warning: %s holds password configs (%s) and SCRAM credentials (--include-secrets): keep it as secret as the cluster's passwords\n",
			a.cmd, file, form)
	}
	return nil
}

// passwordForm says in words what form password values are in.
func passwordForm(f dualwrite.SecretForm) string {
	if f == dualwrite.SecretsPlain {
		return "in plain text, decoded with the password encoder"
	}
	return "as ZooKeeper stores them, encoded with the cluster's password.encoder.secret if it has one"
}

// countPartitions counts the partitions of img's topics.
func countPartitions(img dualwrite.Image) int {
	n := 0
	for _, t := range img.Topics {
		n += len(t.Partitions)
	}
	return n
}

// checkTopicsPath fails unless /brokers/topics exists under the root: a wrong
// --root would read as an empty cluster.
func (a *app) checkTopicsPath(ctx context.Context, w *migrationzk.Writer) error {
	sctx, cancel := a.step(ctx)
	defer cancel()
	zs, err := w.Read(sctx, znode.TopicsPath)
	if err != nil {
		return fmt.Errorf("read %s: %w", a.path(znode.TopicsPath), err)
	}
	if !zs[0].Exists {
		return fmt.Errorf("%s does not exist: is --root right? (Kafka's chroot, such as /kafka)", a.path(znode.TopicsPath))
	}
	return nil
}

// rootName names the cluster read, for messages.
func (a *app) rootName() string {
	return strings.Join(a.servers(), ",") + a.g.root
}

// readBar draws Read's progress on a terminal, the bar started at the
// first report, which brings the number of topics.
type readBar struct {
	a   *app
	bar *progress
}

// update shows p.
func (b *readBar) update(p dualwrite.ReadProgress) {
	if !b.a.tty {
		return
	}
	if b.bar == nil {
		b.bar = startProgress(b.a.stderr, p.TopicsTotal)
	}
	b.bar.listed.Store(int64(p.Topics))
	b.bar.partitions.Store(int64(p.Partitions))
}

// finish clears the bar, if one was drawn.
func (b *readBar) finish() {
	if b.bar != nil {
		b.bar.finish()
		b.bar = nil
	}
}
