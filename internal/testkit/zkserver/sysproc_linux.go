package zkserver

import "syscall"

// sysProcAttr puts the server in its own process group and has the kernel
// kill it if the process that started it dies first, so that an aborted test
// run leaves no server behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
