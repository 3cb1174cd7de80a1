package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kraftmigration/zkwriter/migrationzk/dualwrite"
)

// writeImageFile writes img's JSON to a temporary file beside path, mode
// 0600 (the image describes users and ACLs, and may hold secrets), and
// renames it to path once complete, so that path never holds part of an
// image. Errors name path, not the temporary file.
func writeImageFile(path string, img dualwrite.Image) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write the image to %s: %w", path, fileCause(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := img.WriteJSON(tmp); err != nil {
		return fmt.Errorf("write the image to %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write the image to %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the image to %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the image to %s: %w", path, fileCause(err))
	}
	return nil
}

// fileCause returns the cause of a file operation's error, without the
// paths it names, such as "is a directory".
func fileCause(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// readImageFile reads the image an export wrote to path.
func readImageFile(path string) (dualwrite.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return dualwrite.Image{}, fmt.Errorf("read the image: %w", err)
	}
	defer f.Close()
	img, err := dualwrite.ReadImageJSON(bufio.NewReader(f))
	var sv *dualwrite.SchemaVersionError
	switch {
	case errors.As(err, &sv):
		return dualwrite.Image{}, fmt.Errorf("%s: %w (written by another version of migrationzk?)", path, err)
	case err != nil:
		return dualwrite.Image{}, fmt.Errorf("%s: not an image export: %w", path, err)
	}
	return img, nil
}
