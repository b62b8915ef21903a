// echo_go: the loopback echo server in Go's net package, a goroutine per
// connection (Go's netpoller: epoll plus its own scheduler). The run
// script sets GOMAXPROCS=1, one processor like the other servers.
//
// usage: echo_go   (listens on 127.0.0.1, an ephemeral port, printed on stdout)
package main

import (
	"fmt"
	"net"
	"os"
)

func echo(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo_go:", err)
		os.Exit(1)
	}
	fmt.Println(l.Addr().(*net.TCPAddr).Port)
	for {
		c, err := l.Accept()
		if err != nil {
			continue
		}
		go echo(c) // Go sets TCP_NODELAY on TCP connections by default
	}
}
