//! bench/seed003/relay.c: the floor of seed 003's round trip: the seed's message path (client -> worker
// -> task worker -> client) as two C processes that do nothing else: no PHP, no parsing beyond a
// WebSocket frame's length byte, no connection list. Whatever msg/s the seed's client gets against it on
// this machine is about the most any server with the same process hops can show, so it bounds the
// ratio against Swoole that seed003.sh can measure.
//
// Usage: relay PORT HOPS (127.0.0.1 only).
//   HOPS=3: the task worker hands the frame back to the worker, which writes it to the client (the path
//           rswoole and Swoole both take: a task worker's push goes through the connection's owner).
//   HOPS=2: the worker passes each new connection's socket to the task worker (SCM_RIGHTS) and the task
//           worker writes the frame to the client itself.
// Per message: worker epoll_wait + recv + send (+ epoll_wait + recv + send for HOPS=3); task worker
// epoll_wait + recv + send. Built by bench/seed003.sh with `cc -O2 ... -lcrypto` (SHA-1 of the handshake
// comes from OpenSSL); not part of the extension. Frames up to 125 bytes (the seed sends 11), masked or
// not (rswoole's client always masks: docs/compat.md).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FD 65536

// Reads the upgrade request and answers 101 with the RFC 6455 accept key. Returns -1 on a bad request.
static int handshake(int fd) {
    char req[4096], key[128], out[512];
    unsigned char sha[SHA_DIGEST_LENGTH], b64[64];
    int n = 0;
    for (;;) {
        ssize_t r = read(fd, req + n, sizeof req - 1 - (size_t)n);
        if (r <= 0) return -1;
        n += (int)r;
        req[n] = 0;
        if (strstr(req, "\r\n\r\n")) break;
        if (n >= (int)sizeof req - 1) return -1;
    }
    char *k = strcasestr(req, "\r\nSec-WebSocket-Key:");
    if (!k) return -1;
    k += 20;
    while (*k == ' ') k++;
    int kl = 0;
    while (k[kl] && k[kl] != '\r' && kl < 64) kl++;
    snprintf(key, sizeof key, "%.*s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", kl, k);
    SHA1((const unsigned char *)key, strlen(key), sha);
    EVP_EncodeBlock(b64, sha, SHA_DIGEST_LENGTH);
    int ol = snprintf(out, sizeof out,
                      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Accept: %s\r\n\r\n",
                      b64);
    return write(fd, out, (size_t)ol) == ol ? 0 : -1;
}

// Sends the worker's number for a connection, with the socket itself attached (HOPS=2).
static void pass_socket(int chan, int fd) {
    char cbuf[CMSG_SPACE(sizeof(int))];
    int id = fd;
    struct iovec iov = {.iov_base = &id, .iov_len = sizeof id};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    memset(cbuf, 0, sizeof cbuf);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    sendmsg(chan, &m, 0);
}

// The task worker: every message on the channel is [connection id][frame payload]; it frames the payload
// (FIN + text, unmasked) and writes it to the client (HOPS=2) or sends it back to the worker (HOPS=3).
static void task_worker(int chan, int hops) {
    static int sock[MAX_FD];
    for (int i = 0; i < MAX_FD; i++) sock[i] = -1;
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = chan}, evs[8];
    epoll_ctl(ep, EPOLL_CTL_ADD, chan, &ev);
    for (;;) {
        if (epoll_wait(ep, evs, 8, -1) < 0) continue;
        for (;;) {
            unsigned char in[256], out[256];
            char cbuf[CMSG_SPACE(sizeof(int))];
            struct iovec iov = {.iov_base = in, .iov_len = sizeof in};
            struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
            ssize_t r = recvmsg(chan, &m, MSG_DONTWAIT);
            if (r == 0) _exit(0);
            if (r < 4) break;
            int id;
            memcpy(&id, in, sizeof id);
            if (id < 0 || id >= MAX_FD) continue;
            struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
            if (cm && cm->cmsg_type == SCM_RIGHTS) { // a new connection's socket (HOPS=2)
                if (sock[id] >= 0) close(sock[id]);
                memcpy(&sock[id], CMSG_DATA(cm), sizeof(int));
                continue;
            }
            size_t len = (size_t)r - 4;
            memcpy(out, &id, sizeof id);
            out[4] = 0x81;
            out[5] = (unsigned char)len;
            memcpy(out + 6, in + 4, len);
            if (hops == 2) {
                if (sock[id] >= 0) send(sock[id], out + 4, len + 2, MSG_NOSIGNAL | MSG_DONTWAIT);
            } else {
                send(chan, out, len + 6, 0);
            }
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: relay PORT HOPS(2|3)\n");
        return 2;
    }
    int hops = atoi(argv[2]) == 2 ? 2 : 3, one = 1, ch[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, ch)) {
        perror("relay: socketpair");
        return 1;
    }
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1024)) {
        perror("relay: bind/listen");
        return 1;
    }
    pid_t task = fork();
    if (task == 0) {
        close(ls);
        close(ch[0]);
        task_worker(ch[1], hops);
    }
    close(ch[1]);
    int chan = ch[0], ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls}, evs[64];
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    ev.data.fd = chan;
    epoll_ctl(ep, EPOLL_CTL_ADD, chan, &ev);
    for (;;) {
        int n = epoll_wait(ep, evs, 64, -1);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            unsigned char buf[4096], msg[256];
            if (fd == ls) { // blocking accept and handshake: the seed's client connects one at a time
                int c = accept(ls, NULL, NULL);
                if (c < 0) continue;
                setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                if (c >= MAX_FD || handshake(c) < 0) {
                    close(c);
                    continue;
                }
                if (hops == 2) pass_socket(chan, c);
                struct epoll_event e = {.events = EPOLLIN, .data.fd = c};
                epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
            } else if (fd == chan) { // HOPS=3: [connection id][frame] back from the task worker
                ssize_t r = recv(chan, buf, sizeof buf, MSG_DONTWAIT);
                int id;
                if (r <= 4) continue;
                memcpy(&id, buf, sizeof id);
                send(id, buf + 4, (size_t)r - 4, MSG_NOSIGNAL | MSG_DONTWAIT);
            } else { // a client frame: 2-byte head, the 4-byte mask when masked, payload
                ssize_t r = recv(fd, buf, sizeof buf, 0);
                size_t len = r >= 2 ? (size_t)(buf[1] & 0x7f) : 0, at = r >= 2 && (buf[1] & 0x80) ? 6 : 2;
                if (r <= 0 || (buf[0] & 0x0f) == 8 || len > 125 || (size_t)r < at + len) {
                    epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
                    close(fd);
                    continue;
                }
                memcpy(msg, &fd, sizeof fd);
                for (size_t j = 0; j < len; j++) msg[4 + j] = at == 6 ? buf[at + j] ^ buf[2 + j % 4] : buf[at + j];
                send(chan, msg, len + 4, 0);
            }
        }
    }
}
