//go:build !linux

package krb5kdc

import "syscall"

// sysProcAttr puts the KDC in its own process group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
