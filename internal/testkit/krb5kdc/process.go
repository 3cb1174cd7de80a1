package krb5kdc

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Restart starts the krb5kdc process of a stopped KDC, on the same port
// and database, and waits until it accepts connections. Start calls it.
func (k *KDC) Restart(ctx context.Context) error {
	if k.Running() {
		return fmt.Errorf("krb5kdc: the KDC at %s is running", k.Addr())
	}
	out, err := os.OpenFile(filepath.Join(k.cfg.Dir, "krb5kdc.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("krb5kdc: %w", err)
	}
	defer out.Close()
	cmd := exec.Command(k.install.KDC, "-n", "-r", k.cfg.Realm, "-P", filepath.Join(k.cfg.Dir, "krb5kdc.pid"))
	cmd.Env = k.Env()
	cmd.Dir = k.cfg.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("krb5kdc: start %s: %w", k.install.KDC, err)
	}
	done := make(chan struct{})
	k.mu.Lock()
	k.cmd, k.done = cmd, done
	k.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return k.waitReady(ctx, done)
}

// waitReady waits until the KDC accepts TCP connections on its port.
func (k *KDC) waitReady(ctx context.Context, done <-chan struct{}) error {
	for {
		c, err := net.DialTimeout("tcp", k.Addr(), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("krb5kdc: the KDC exited before it served %s:\n%s", k.Addr(), k.LogTail(2048))
		case <-ctx.Done():
			_ = k.Stop()
			return fmt.Errorf("krb5kdc: the KDC does not serve %s: %w", k.Addr(), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Running reports whether the krb5kdc process is alive.
func (k *KDC) Running() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done == nil {
		return false
	}
	select {
	case <-k.done:
		return false
	default:
		return true
	}
}

// Stop ends the krb5kdc process (SIGTERM, then SIGKILL after five
// seconds) and waits for it to exit; the realm's database stays, so
// Restart serves it again. Stopping a stopped KDC does nothing.
func (k *KDC) Stop() error {
	k.mu.Lock()
	cmd, done := k.cmd, k.done
	k.mu.Unlock()
	if cmd == nil || !k.Running() {
		return nil
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
		return nil
	case <-time.After(5 * time.Second):
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("krb5kdc: the KDC (pid %d) did not exit", cmd.Process.Pid)
	}
}

// LogTail returns up to n trailing bytes of the KDC's log and output.
func (k *KDC) LogTail(n int) string {
	var b []byte
	for _, name := range []string{"kdc.log", "krb5kdc.out"} {
		if data, err := os.ReadFile(filepath.Join(k.cfg.Dir, name)); err == nil {
			b = append(b, data...)
		}
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
