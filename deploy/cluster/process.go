package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Process is one child process of the cluster, restartable with the same command.
type Process struct {
	Name string
	args []string
	env  []string
	log  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

func newProcess(name, logDir string, env []string, args ...string) *Process {
	return &Process{Name: name, args: args, env: env, log: filepath.Join(logDir, name+".log")}
}

// Start starts the process; its output is appended to its log file.
func (p *Process) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = f, f
	// Its own process group: a kill reaches nothing else, and Ctrl-C of the cluster is ours to relay.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(done)
	}()
	p.cmd, p.done = cmd, done
	return nil
}

// Running reports whether the process has been started and has not exited.
func (p *Process) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Kill sends SIGKILL (what a crash or the OOM killer does) and waits for the exit.
func (p *Process) Kill() { p.signal(syscall.SIGKILL, 0) }

// Stop asks the process to stop (SIGTERM) and kills it after grace.
func (p *Process) Stop(grace time.Duration) { p.signal(syscall.SIGTERM, grace) }

func (p *Process) signal(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// Restart kills the process and starts it again.
func (p *Process) Restart() error {
	p.Kill()
	return p.Start()
}

// Log is the path of the process's log file.
func (p *Process) Log() string { return p.log }
