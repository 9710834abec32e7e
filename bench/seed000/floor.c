// bench/seed000/floor.c: the client ceiling of bench/run.sh: an epoll loop that answers every read with
// the same bytes rswoole and Swoole send for the seed's hello world, doing no other work (no parsing, no
// Date, no PHP). Whatever req/s it gets under `wrk -t1` / `ab` on this machine is the most the load
// generator can drive on its one CPU, so no server can show a higher ratio against Swoole by this method.
// Usage: floor PORT (127.0.0.1 only). Built by bench/run.sh with `cc -O2`; not part of the extension.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char HEAD[] =
    "HTTP/1.1 200 OK\r\n"
    "Last-Modified: Thu, 18 Jun 2015 10:24:27 GMT\r\n"
    "E-Tag: 55829c5b-17\r\n"
    "Accept-Ranges: bytes\r\n"
    "Server: swoole-http-server\r\n"
    "Date: %s\r\n"
    "Connection: keep-alive\r\n"
    "Content-Type: text/html\r\n"
    "Content-Length: 24\r\n"
    "\r\n"
    "<h1>\nHello Swoole.\n</h1>";

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: floor PORT\n");
        return 2;
    }
    char date[64], resp[512];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", gmtime(&now));
    int len = snprintf(resp, sizeof resp, HEAD, date);
    int one = 1;
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1024)) {
        perror("floor: bind/listen");
        return 1;
    }
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls}, evs[512];
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    static char buf[16384];
    for (;;) {
        int n = epoll_wait(ep, evs, 512, -1);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == ls) {
                int c;
                while ((c = accept4(ls, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct epoll_event e = {.events = EPOLLIN, .data.fd = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
                }
                continue;
            }
            ssize_t r = recv(fd, buf, sizeof buf, 0);
            if (r <= 0) {
                close(fd);
                continue;
            }
            // One answer per read: wrk and ab send one request at a time per connection.
            if (send(fd, resp, (size_t)len, MSG_NOSIGNAL) < 0) close(fd);
        }
    }
}
