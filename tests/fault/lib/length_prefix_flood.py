#!/usr/bin/env python3
"""length_prefix_flood.py — a hostile peer for the rpc endpoints (tests/fault/unauthenticated_flood.sh).

Opens COUNT TCP connections to each HOST:PORT given, and on each sends a 4-byte frame length of
128 MiB followed by JUNK bytes, without ever authenticating. Keeps every connection open (those
the server has not closed) until its standard input closes, so the caller can measure the
servers while the connections exist. Prints one line per target once everything is sent:
"target=HOST:PORT connected=N refused=M" and then "ready".

usage: length_prefix_flood.py COUNT JUNK HOST:PORT [HOST:PORT...]
"""
import resource
import socket
import struct
import sys


def main():
    count, junk = int(sys.argv[1]), int(sys.argv[2])
    targets = sys.argv[3:]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = count * len(targets) + 64
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    payload = struct.pack(">I", 128 * 1024 * 1024) + b"\x5a" * junk
    held = []
    for target in targets:
        host, port = target.rsplit(":", 1)
        connected = refused = 0
        for _ in range(count):
            try:
                s = socket.create_connection((host, int(port)), timeout=30)
            except OSError:
                refused += 1
                continue
            connected += 1
            held.append(s)
            s.settimeout(0)
            sent = 0
            while sent < len(payload):  # as much as the server takes before it closes
                try:
                    n = s.send(payload[sent:])
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    break
                sent += n
        print(f"target={target} connected={connected} refused={refused}", flush=True)
    print("ready", flush=True)
    sys.stdin.read()
    for s in held:
        s.close()


if __name__ == "__main__":
    main()
