package krb5kdc

import "syscall"

// sysProcAttr puts the KDC in its own process group and has the kernel
// kill it if the process that started it dies first, so that an aborted test
// run leaves no KDC behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
