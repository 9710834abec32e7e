# bench/idle/client.py: opens N keep-alive HTTP connections to 127.0.0.1:PORT, sends one GET on each,
# reads each answer, then holds every connection open (idle) until stdin closes or HOLD seconds pass.
# Prints "ready N" once all N answered (or "ready K" with the number that did, after a bounded wait).
import asyncio
import sys


async def main(port, n, hold):
    conns = []
    ok = 0
    sem = asyncio.Semaphore(500)

    async def one():
        nonlocal ok
        async with sem:
            try:
                r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
                w.write(b"GET / HTTP/1.1\r\nHost: b\r\n\r\n")
                await w.drain()
                head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 10)
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await asyncio.wait_for(r.readexactly(length), 10)
                conns.append(w)
                ok += 1
            except Exception:
                pass

    await asyncio.gather(*(one() for _ in range(n)))
    print("ready %d" % ok, flush=True)
    await asyncio.sleep(hold)
    for w in conns:
        w.close()


asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
