//go:build ignore

// bench/tcp/echo.go: the Go reference TCP echo server for bench/tcp.sh (standard library only).
// One goroutine per connection, each a Read/Write loop; GOMAXPROCS 1; listens on 127.0.0.1:$PORT.
// Build by file name: GO111MODULE=off go build -o echo bench/tcp/echo.go
package main

import (
	"log"
	"net"
	"os"
	"runtime"
)

func serve(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 64<<10)
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
	runtime.GOMAXPROCS(1)
	port := os.Getenv("PORT")
	if port == "" {
		port = "9501"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		log.Fatal(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Print(err)
			continue
		}
		go serve(c)
	}
}
