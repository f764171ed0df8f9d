package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/tilegpu/tilegpu/cmdbuf"
)

// cmdServe runs the GPU process: one GPU shared by every client that
// connects over the Unix socket (shared memory) or TCP, until SIGINT or
// SIGTERM.
func cmdServe(args []string) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	return serve(args, sig, stderr)
}

// serve runs the service, logging to logw, until stop delivers a value.
func serve(args []string, stop <-chan os.Signal, logw io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	socket := fs.String("socket", "", "listen on this Unix-domain socket (clients: -remote unix:PATH)")
	listen := fs.String("listen", "", "listen on this TCP HOST:PORT (clients: -remote tcp:HOST:PORT)")
	maxClients := fs.Int("max-clients", 64, "most clients connected at once")
	cores := fs.Int("cores", 0, "render worker cores (0: GOMAXPROCS)")
	memMiB := fs.Int("memory", 0, "GPU memory in MiB (0: cmdbuf.DefaultServiceMemory, 1024)")
	record := fs.String("record", "", "record every client's command stream to DIR/client-N.tgcb (see tilegpu replay)")
	crashDump := fs.String("crashdump", "", "write a crash dump into DIR for every GPU fault, aborted shader or hang (see tilegpu crashdec); turns on draw markers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *socket == "" && *listen == "" {
		return errors.New("give -socket PATH and/or -listen HOST:PORT")
	}
	if *maxClients < 1 || *cores < 0 || *memMiB < 0 || *memMiB > 1<<20 {
		return errors.New("-max-clients must be at least 1; -cores and -memory not negative")
	}
	if *crashDump != "" {
		if fi, err := os.Stat(*crashDump); err != nil || !fi.IsDir() {
			return fmt.Errorf("-crashdump %s: not a directory", *crashDump)
		}
	}
	logger := log.New(logw, "tilegpu serve: ", log.LstdFlags|log.Lmicroseconds)
	svc, err := cmdbuf.NewService(cmdbuf.ServiceConfig{Cores: *cores, MemorySize: *memMiB << 20, MaxClients: *maxClients, RecordDir: *record, CrashDumpDir: *crashDump, Logf: logger.Printf})
	if err != nil {
		return err
	}
	defer svc.Close()
	errc := make(chan error, 2)
	var closers []func()
	if *socket != "" {
		removeStaleSocket(*socket)
		l, err := cmdbuf.ListenUnix(*socket)
		if err != nil {
			return err
		}
		closers = append(closers, func() { l.Close() })
		logger.Printf("listening on unix:%s", *socket)
		go func() { errc <- svc.ServeUnix(l) }()
	}
	if *listen != "" {
		l, err := net.Listen("tcp", *listen)
		if err != nil {
			for _, c := range closers {
				c()
			}
			return err
		}
		closers = append(closers, func() { l.Close() })
		logger.Printf("listening on tcp:%s", l.Addr())
		go func() { errc <- svc.ServeTCP(l) }()
	}
	logger.Printf("serving one GPU to at most %d clients", *maxClients)
	select {
	case s := <-stop:
		logger.Printf("%v: shutting down (%d clients connected)", s, svc.Clients())
		err = nil
	case err = <-errc:
		err = fmt.Errorf("listener: %w", err)
	}
	for _, c := range closers {
		c()
	}
	return err
}

// removeStaleSocket deletes a socket file nobody listens on any more (left
// by a service that was killed), so a restart can bind it.
func removeStaleSocket(path string) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 {
		return
	}
	if c, err := net.Dial("unixpacket", path); err == nil {
		c.Close()
		return
	}
	os.Remove(path)
}
