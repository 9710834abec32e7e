// Seed 000 Go net/http hello server (the seed's program; only change: listen on 127.0.0.1:$PORT instead of :8080).
package main

import (
	"log"
	"net/http"
	"os"
	"runtime"
)

func main() {
	// As in the seed. Under `taskset -c 0` NumCPU() is 1, so this is
	// GOMAXPROCS(0), which changes nothing: GOMAXPROCS stays 1.
	runtime.GOMAXPROCS(runtime.NumCPU() - 1)

	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Last-Modified", "Thu, 18 Jun 2015 10:24:27 GMT")
		w.Header().Add("Accept-Ranges", "bytes")
		w.Header().Add("E-Tag", "55829c5b-17")
		w.Header().Add("Server", "golang-http-server")
		w.Write([]byte("<h1>\nHello world!\n</h1>\n"))
	})

	// The seed listens on ":8080" (all interfaces); the bench must stay on loopback.
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	addr := "127.0.0.1:" + port
	log.Printf("Go http Server listen on %s", addr)
	log.Fatal(http.ListenAndServe(addr, nil))
}
