//go:build ignore

// bench/tcp/client.go: closed-loop TCP echo load generator for bench/tcp.sh (standard library only).
//
// -c connections each send a -size byte message, wait for the whole echo (io.ReadFull), check it
// byte for byte, and repeat. The first -warmup is not counted; then for -d every completed round
// trip is counted and its latency recorded. Output: key=value lines on stdout (msgs, msgs_per_s,
// p50_us, p99_us, p999_us, max_us, errors, client_cpu_pct). Exit status 1 if no connection could
// be opened or no round trip completed.
//
// Build by file name (the ignore tag keeps it out of directory builds):
//
//	GO111MODULE=off go build -o client bench/tcp/client.go
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9501", "server address")
	conns := flag.Int("c", 100, "connections")
	size := flag.Int("size", 64, "message size in bytes")
	dur := flag.Duration("d", 10*time.Second, "measured duration")
	warm := flag.Duration("warmup", 1*time.Second, "uncounted warm-up before the measurement")
	flag.Parse()

	cs := make([]net.Conn, 0, *conns)
	for i := 0; i < *conns; i++ {
		c, err := net.DialTimeout("tcp", *addr, 5*time.Second)
		if err != nil {
			fmt.Fprintf(os.Stderr, "connect %d/%d: %v\n", i+1, *conns, err)
			os.Exit(1)
		}
		cs = append(cs, c)
	}

	start := time.Now()
	winStart := start.Add(*warm)
	winEnd := winStart.Add(*dur)
	var errors int64
	lat := make([][]time.Duration, *conns)
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func(i int, c net.Conn) {
			defer wg.Done()
			defer c.Close()
			c.SetDeadline(winEnd.Add(5 * time.Second))
			msg := make([]byte, *size)
			for j := range msg {
				msg[j] = byte('a' + (i+j)%26)
			}
			buf := make([]byte, *size)
			l := make([]time.Duration, 0, 1<<14)
			for {
				t0 := time.Now()
				if t0.After(winEnd) {
					break
				}
				if _, err := c.Write(msg); err != nil {
					atomic.AddInt64(&errors, 1)
					break
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					atomic.AddInt64(&errors, 1)
					break
				}
				t1 := time.Now()
				if !bytes.Equal(buf, msg) {
					atomic.AddInt64(&errors, 1)
				}
				if t1.After(winStart) && !t1.After(winEnd) {
					l = append(l, t1.Sub(t0))
				}
			}
			lat[i] = l
		}(i, c)
	}

	time.Sleep(time.Until(winStart))
	cpu0, wall0 := cpuTime(), time.Now()
	time.Sleep(time.Until(winEnd))
	cpu1, wall1 := cpuTime(), time.Now()
	wg.Wait()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	if len(all) == 0 {
		fmt.Fprintln(os.Stderr, "no round trip completed")
		fmt.Printf("msgs=0\nerrors=%d\n", errors)
		os.Exit(1)
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	pct := func(p float64) float64 {
		k := int(p*float64(len(all))+0.5) - 1
		if k < 0 {
			k = 0
		}
		if k >= len(all) {
			k = len(all) - 1
		}
		return float64(all[k].Nanoseconds()) / 1e3
	}
	fmt.Printf("msgs=%d\n", len(all))
	fmt.Printf("msgs_per_s=%.0f\n", float64(len(all))/dur.Seconds())
	fmt.Printf("p50_us=%.0f\n", pct(0.50))
	fmt.Printf("p99_us=%.0f\n", pct(0.99))
	fmt.Printf("p999_us=%.0f\n", pct(0.999))
	fmt.Printf("max_us=%.0f\n", float64(all[len(all)-1].Nanoseconds())/1e3)
	fmt.Printf("errors=%d\n", errors)
	fmt.Printf("client_cpu_pct=%.0f\n", 100*float64(cpu1-cpu0)/float64(wall1.Sub(wall0)))
}
