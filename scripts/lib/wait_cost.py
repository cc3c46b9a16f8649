#!/usr/bin/env python3
"""The round trip of a message accept with and without `WAIT 1 <timeout>` behind it (scripts/bench-wait).

    wait_cost.py PORT ROUNDS N [DEPTH]

Talks RESP to the primary on 127.0.0.1:PORT (one replica attached) the way RedisClient does with
WHISPER_REDIS_MIN_REPLICAS=1: EVALSHA of a script that writes a ~1.2 KB value and a counter, with
`WAIT 1 500` pipelined behind it in the same write; then the same without WAIT. DEPTH accepts
(default 1) go out in one write, as one loop iteration of a busy relay sends them, and their
replies are read before the next batch. Prints median, mean and p99 of N batches per mode and the
accepts per second of the mode, ROUNDS times alternating.
"""
import hashlib, socket, statistics, sys, time

port, rounds, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
depth = int(sys.argv[4]) if len(sys.argv) > 4 else 1
source = b"redis.call('SET', KEYS[1], ARGV[1]) redis.call('INCR', KEYS[2]) return 1"
sha = hashlib.sha1(source).hexdigest().encode()


def command(*arguments):
    out = b"*%d\r\n" % len(arguments)
    for argument in arguments:
        out += b"$%d\r\n%s\r\n" % (len(argument), argument)
    return out


sock = socket.create_connection(("127.0.0.1", port))
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
replies = sock.makefile("rb")


def reply():
    line = replies.readline()
    if line[:1] == b"$" and int(line[1:]) >= 0:
        replies.read(int(line[1:]) + 2)
    if line[:1] == b"-":
        sys.exit("error reply: %r" % line)
    return line


sock.sendall(command(b"SCRIPT", b"LOAD", source))
reply()
payload = b"x" * 1200


def run(wait):
    latencies = []
    began = time.perf_counter()
    for i in range(n):
        data = b""
        for j in range(depth):
            data += command(b"EVALSHA", sha, b"2", b"{wc}:m%d" % ((i * depth + j) % 1000), b"{wc}:c", payload)
            if wait:
                data += command(b"WAIT", b"1", b"500")
        start = time.perf_counter()
        sock.sendall(data)
        for _ in range(depth):
            reply()
            if wait and reply() != b":1\r\n":
                sys.exit("WAIT reported no replica")
        latencies.append((time.perf_counter() - start) * 1e6)
    rate = n * depth / (time.perf_counter() - began)
    latencies.sort()
    return statistics.median(latencies), statistics.mean(latencies), latencies[int(len(latencies) * 0.99)], rate


for number in range(rounds):
    for wait in (False, True):
        median, mean, p99, rate = run(wait)
        label = "EVALSHA + WAIT" if wait else "EVALSHA       "
        print(f"round {number} depth {depth} {label}: median {median:7.1f} us  mean {mean:7.1f} us  "
              f"p99 {p99:8.1f} us  {rate:8.0f} accepts/s", flush=True)
